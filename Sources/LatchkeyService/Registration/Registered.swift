import LatchkeyStore
import WebAuthn

/// A passkey registered (§7.1): what the reply says of it, and the session and token when the registration
/// signed the user in (it created the user, or spent a ticket); a passkey added by a signed-in user starts no
/// session, but its token says who registered it.
package struct Registered: Sendable {
    package let username: String
    package let credentialID: [UInt8]
    package let attestationFormat: AttestationFormatIdentifier
    package let attestationType: AttestationType
    package let attestationTrusted: Bool
    package let userVerified: Bool
    package let session: Sessions.Started?
    /// Nil when `signInTokens` is off.
    package let idToken: String?
}
