import LatchkeyStore
import WebAuthn

/// `authenticatorSelection` (WebAuthn §5.4.4), echoed in creation options as it was asked.
package struct AuthenticatorSelectionCriteria: Codable, Sendable, Equatable {
    package var authenticatorAttachment: AuthenticatorAttachment?
    package var residentKey: ResidentKeyRequirement?
    package var requireResidentKey: Bool?
    package var userVerification: UserVerificationRequirement?
}

/// A `PublicKeyCredentialDescriptor` for allow and exclude lists (WebAuthn §5.8.3).
package struct CredentialDescriptor: Encodable, Sendable, Equatable {
    package var type = PublicKeyCredentialType.publicKey
    package var id: Base64URLBytes
    package var transports: [AuthenticatorTransport]?

    package init(_ credential: CredentialRecord) {
        self.init(id: credential.id, transports: credential.transports)
    }

    package init(id: [UInt8], transports: [AuthenticatorTransport]) {
        self.id = Base64URLBytes(id)
        self.transports = transports.isEmpty ? nil : transports
    }
}

