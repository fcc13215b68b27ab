import LatchkeyService
import WebAuthn

/// `POST /assertion/result` reply.
struct SignInReply: ReplyBody {
    var username: String
    var displayName: String
    var credentialId: Base64URLBytes
    var userVerified: Bool
    var sessionToken: String
    /// The signed sign-in token (JWT) other services verify against `/.well-known/jwks.json`; absent when
    /// `signInTokens` is off.
    var idToken: String?
}

/// `GET /site` reply: the relying party a page stands for, and whether its caller is signed in.
struct SiteReply: ReplyBody {
    var rpId: String
    /// The name shown to people (the tenant's `rpName`, or the server's).
    var rpName: String
    var signedIn: Bool
}

/// `GET /session` reply: who is signed in.
struct SessionReply: ReplyBody {
    var username: String
    var displayName: String
    var userHandle: Base64URLBytes
    /// The RP ID their passkeys belong to (for the WebAuthn Signal API).
    var rpId: String
    /// How many passkeys the user has.
    var passkeys: Int
}
