import LatchkeyJSON
import WebAuthn

/// The request options of a sign-in (`PublicKeyCredentialRequestOptionsJSON`, WebAuthn §5.5), as the service
/// builds them.
package struct RequestOptions: Encodable, Sendable {
    package var challenge: Base64URLBytes
    /// Milliseconds.
    package var timeout: Int
    package var rpId: String
    package var allowCredentials: [CredentialDescriptor]
    package var userVerification: UserVerificationRequirement
    package var hints: [String]?
    package var extensions: [String: JSONValue]?
}
