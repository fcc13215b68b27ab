import LatchkeyService
import WebAuthn

/// `POST /assertion/options` body: everything optional; no username means usernameless sign-in.
struct AuthenticationOptionsRequest: Decodable, Sendable {
    var username: String?
    var userVerification: UserVerificationRequirement?
    /// Level 3 `hints` (`security-key`, `client-device`, `hybrid`), passed through as sent.
    var hints: [String]?
    /// Echoed as sent; must be an object.
    var extensions: EchoedExtensions?
    /// Carried back in the sign-in token's `nonce` claim.
    var nonce: String?
}

/// The request options reply (`PublicKeyCredentialRequestOptionsJSON`, WebAuthn §5.5) with
/// `status` and `errorMessage` beside them.
struct RequestOptionsReply: Encodable, Sendable {
    let status = "ok"
    let errorMessage = ""
    var challenge: Base64URLBytes
    /// Milliseconds.
    var timeout: Int
    var rpId: String
    var allowCredentials: [CredentialDescriptor]
    var userVerification: UserVerificationRequirement
    var hints: [String]?
    var extensions: [String: JSONValue]?
}

/// `POST /assertion/result` body: an `AuthenticationResponseJSON` (WebAuthn §5.1, `toJSON()`).
struct AuthenticationCredential: Decodable, Sendable {
    struct Response: Decodable, Sendable {
        var clientDataJSON: Base64URLBytes
        var authenticatorData: Base64URLBytes
        var signature: Base64URLBytes
        /// Absent, null or empty when the authenticator returned none.
        var userHandle: Base64URLBytes?
    }

    var id: Base64URLBytes
    var rawId: Base64URLBytes?
    var type: PublicKeyCredentialType
    var response: Response
}

/// `POST /assertion/result` reply.
struct SignInReply: Encodable, Sendable {
    let status = "ok"
    let errorMessage = ""
    var username: String
    var displayName: String
    var credentialId: Base64URLBytes
    var userVerified: Bool
    var sessionToken: String
    /// The signed sign-in token (JWT) other services verify against `/.well-known/jwks.json`.
    var idToken: String
}

/// `GET /session` reply: who is signed in.
struct SessionReply: Encodable, Sendable {
    let status = "ok"
    let errorMessage = ""
    var username: String
    var displayName: String
    var userHandle: Base64URLBytes
    /// The RP ID their passkeys belong to (for the WebAuthn Signal API).
    var rpId: String
    /// How many passkeys the user has.
    var passkeys: Int
}
