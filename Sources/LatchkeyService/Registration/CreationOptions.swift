import LatchkeyJSON
import WebAuthn

/// The creation options of a registration (`PublicKeyCredentialCreationOptionsJSON`, WebAuthn §5.4), as the
/// service builds them: the server's choices, not the client's.
package struct CreationOptions: Encodable, Sendable {
    package struct RelyingPartyEntity: Encodable, Sendable {
        package var id: String
        package var name: String
    }

    package struct UserEntity: Encodable, Sendable {
        package var id: Base64URLBytes
        package var name: String
        package var displayName: String
    }

    package struct CredentialParameters: Encodable, Sendable {
        package var type = PublicKeyCredentialType.publicKey
        package var alg: Int64
    }

    package var rp: RelyingPartyEntity
    package var user: UserEntity
    package var challenge: Base64URLBytes
    package var pubKeyCredParams: [CredentialParameters]
    /// Milliseconds.
    package var timeout: Int
    package var excludeCredentials: [CredentialDescriptor]
    package var authenticatorSelection: AuthenticatorSelectionCriteria?
    package var attestation: AttestationConveyance
    package var hints: [String]?
    package var attestationFormats: [String]?
    package var extensions: [String: JSONValue]?
}
