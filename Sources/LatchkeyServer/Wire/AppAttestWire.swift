import Foundation
import LatchkeyService
import LatchkeyStore
import WebAuthn

/// `POST /app-attest/challenge` reply.
struct AppAttestChallengeReply: Encodable, Sendable {
    let status = "ok"
    let errorMessage = ""
    var challenge: Base64URLBytes
    /// Milliseconds.
    var timeout: Int
}

/// `POST /app-attest/keys` reply.
struct AppAttestKeyReply: Encodable, Sendable {
    let status = "ok"
    let errorMessage = ""
    var keyId: Base64URLBytes
    var appId: String
    var environment: String
}

/// `POST /app-attest/assertions` reply.
struct AppAttestAssertionReply: Encodable, Sendable {
    let status = "ok"
    let errorMessage = ""
    var keyId: Base64URLBytes
    var appId: String
    var counter: UInt32
}
