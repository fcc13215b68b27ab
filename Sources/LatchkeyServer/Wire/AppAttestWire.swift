import Foundation
import LatchkeyService
import LatchkeyStore
import WebAuthn

/// `POST /app-attest/challenge` reply.
struct AppAttestChallengeReply: ReplyBody {
    var challenge: Base64URLBytes
    /// Milliseconds.
    var timeout: Int
}

/// `POST /app-attest/keys` reply.
struct AppAttestKeyReply: ReplyBody {
    var keyId: Base64URLBytes
    var appId: String
    var environment: String
}

/// `POST /app-attest/assertions` reply.
struct AppAttestAssertionReply: ReplyBody {
    var keyId: Base64URLBytes
    var appId: String
    var counter: UInt32
}
