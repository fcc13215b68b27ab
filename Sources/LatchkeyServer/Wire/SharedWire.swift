import LatchkeyService
import LatchkeyStore
import WebAuthn

/// `{"status":"failed","errorMessage":…}`: the body of every refusal. Some refusals add a
/// machine-readable `reason` (and the credential it is about) for clients that act on it.
struct FailureReply: Encodable, Sendable {
    let status = "failed"
    var errorMessage: String
    var reason: FailureReason?
    var credentialId: Base64URLBytes?
}

/// `{"status":"ok","errorMessage":""}` with nothing else.
struct OKReply: Encodable, Sendable {
    let status = "ok"
    let errorMessage = ""
}
