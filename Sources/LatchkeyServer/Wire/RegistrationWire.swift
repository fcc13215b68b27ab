import LatchkeyService
import LatchkeyStore
import WebAuthn

/// `POST /attestation/result` reply.
struct RegistrationReply: ReplyBody {
    var username: String
    var credentialId: Base64URLBytes
    var attestationFormat: AttestationFormatIdentifier
    var attestationType: AttestationType
    var attestationTrusted: Bool
    var userVerified: Bool
    /// Set when the registration signed the user in: it created the user, or spent a ticket.
    var sessionToken: String?
    /// The signed sign-in token (JWT) saying who registered this passkey; absent when `signInTokens` is off.
    var idToken: String?
}
