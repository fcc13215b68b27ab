/// Whether a ceremony must carry the UP flag.
public enum UserPresencePolicy: String, Codable, Sendable {
    /// WebAuthn's rule: UP must be set (the default).
    case required
    /// Accept assertions without UP when user verification is not required. The FIDO conformance
    /// tools expect this (Assertion Resp-3 P-4, P-7); never use it in production.
    case optionalUnlessVerificationRequired
}
