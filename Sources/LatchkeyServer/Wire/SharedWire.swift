import LatchkeyStore
import WebAuthn

/// `authenticatorSelection` (WebAuthn §5.4.4), echoed in creation options as it was asked.
struct AuthenticatorSelectionCriteria: Codable, Sendable, Equatable {
    var authenticatorAttachment: AuthenticatorAttachment?
    var residentKey: ResidentKeyRequirement?
    var requireResidentKey: Bool?
    var userVerification: UserVerificationRequirement?
}

/// A `PublicKeyCredentialDescriptor` for allow and exclude lists (WebAuthn §5.8.3).
struct CredentialDescriptor: Encodable, Sendable, Equatable {
    var type = PublicKeyCredentialType.publicKey
    var id: Base64URLBytes
    var transports: [AuthenticatorTransport]?

    init(_ credential: CredentialRecord) {
        id = Base64URLBytes(credential.id)
        transports = credential.transports.isEmpty ? nil : credential.transports
    }
}

/// `{"status":"failed","errorMessage":…}`: the body of every refusal.
struct FailureReply: Encodable, Sendable {
    let status = "failed"
    var errorMessage: String
}

/// `{"status":"ok","errorMessage":""}` with nothing else.
struct OKReply: Encodable, Sendable {
    let status = "ok"
    let errorMessage = ""
}
