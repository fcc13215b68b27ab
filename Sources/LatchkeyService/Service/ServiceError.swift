import WebAuthn

/// A request the service refuses, in its own words: what kind of refusal it is (``Code``), the message the client
/// sees, and, for clients that act on it, a machine-readable reason and the credential it is about. The transport
/// maps each code to its status in one place.
public struct ServiceError: Error, Sendable, CustomStringConvertible {
    /// What kind of refusal this is.
    public enum Code: String, Sendable {
        /// The request itself is wrong: a member missing or malformed, a check the answer failed.
        case invalidInput
        /// The caller is not signed in (or its ticket, key or session is not there).
        case notSignedIn
        /// The caller is known but may not do this.
        case forbidden
        /// What the request names does not exist (or is not the caller's to see).
        case notFound
        /// The request conflicts with what is stored: a name taken, a record changed meanwhile.
        case conflict
        /// This client has too many challenges pending.
        case tooManyPending
        /// The server cannot take this now (its challenges are full, a race lost too often); try again shortly.
        case busy
        /// A state the service's own code should never reach.
        case internalInvariant
    }

    public let code: Code
    public let message: String
    /// A machine-readable reason, and the credential it is about, for the reply.
    public var reason: FailureReason?
    public var credentialID: [UInt8]?
    /// Seconds after which trying again may succeed, for ``Code/tooManyPending`` and ``Code/busy``.
    public var retryAfterSeconds: Int?

    public init(_ code: Code, _ message: String, reason: FailureReason? = nil, credentialID: [UInt8]? = nil, retryAfterSeconds: Int? = nil) {
        self.code = code
        self.message = message
        self.reason = reason
        self.credentialID = credentialID
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var description: String { message }

    /// The request is wrong, as `message` says.
    package static func invalid(_ message: String) -> ServiceError { ServiceError(.invalidInput, message) }

    /// A state the service's own code should never reach (not a store fault): `detail` names it.
    package static func internalInvariant(_ detail: String) -> ServiceError {
        ServiceError(.internalInvariant, "internal error: \(detail)")
    }

    /// An answer to a challenge another answer spent while this one was being verified.
    package static let challengeAnsweredAlready = ServiceError.invalid("clientDataJSON.challenge was answered already; request new options")

    /// A passkey the server does not know, with `"reason":"unknownCredential"` and its ID.
    package static func unknownCredential(_ id: [UInt8], rpID: String) -> ServiceError {
        ServiceError(.invalidInput, "this passkey is not registered with \(rpID)", reason: .unknownCredential, credentialID: id)
    }

    /// An account the backend disabled, with `"reason":"accountDisabled"`.
    package static func accountDisabled(_ username: String) -> ServiceError {
        ServiceError(.forbidden, "the account \(username.debugDescription) is disabled; ask the service that runs it", reason: .accountDisabled)
    }

    /// A device key the server does not know, with `"reason":"unknownDeviceKey"`.
    package static func unknownDeviceKey(_ id: [UInt8]) -> ServiceError {
        ServiceError(
            .invalidInput, "this device key is not enrolled (it was removed, or its account deleted): enroll a new one",
            reason: .unknownDeviceKey, credentialID: id)
    }

    /// An App Attest key the server never attested, with `"reason":"unknownAppAttestKey"`.
    package static func unknownAppAttestKey(_ id: [UInt8]) -> ServiceError {
        ServiceError(
            .invalidInput, "this App Attest key was never attested here: attest a new key with POST /app-attest/keys",
            reason: .unknownAppAttestKey, credentialID: id)
    }

    /// The signed-in user is needed and there is none.
    package static let notSignedIn = ServiceError(.notSignedIn, "not signed in")
}
