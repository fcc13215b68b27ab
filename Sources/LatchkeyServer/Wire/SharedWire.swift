import LatchkeyJSON
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

/// A reply with nothing beside its envelope: `{"status":"ok","errorMessage":""}`.
struct OKReply: ReplyBody, JSONTextMembers {
    func writeMembers(to json: inout JSONText) {}
}
