import LatchkeyService
import LatchkeyStore
import Logging
import WebAuthn

/// Turns what a route throws into the ``APIError`` its client is answered with. Verification and input errors
/// become 4xx with their message; a store, cryptography or unexpected failure becomes a 500 (a store that is down
/// or full, a 503) whose details go to the log only.
struct ErrorStatus: Sendable {
    /// Told of store faults, so that readiness turns 503 at once.
    var health: StoreHealth?

    /// Seconds a client is asked to wait when the store is unavailable, and when it is full.
    static var unavailableRetryAfter: String { "5" }
    static var fullRetryAfter: String { "60" }

    func refusal(for error: any Error, route: String, logger: Logger) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as ServiceError:
            return APIError(error)
        case let error as WebAuthnError where error.code == .cryptoFailure:
            logger.error("cryptography failure", metadata: ["route": "\(route)", "error": "\(error.message)"])
            return APIError(.internalServerError, "internal cryptography error")
        case let error as WebAuthnError:
            // Logged at info with the other refusals, with the message that names the check.
            return APIError(.badRequest, error.message)
        case let error as StoreError:
            return refusal(for: error, route: route, logger: logger)
        default:
            logger.error("unexpected error", metadata: ["route": "\(route)", "error": "\(error)"])
            return APIError(.internalServerError, "internal error")
        }
    }

    private func refusal(for error: StoreError, route: String, logger: Logger) -> APIError {
        switch error.code {
        case .usernameTaken, .credentialAlreadyRegistered, .externalIdTaken, .nameTaken:
            return APIError(.conflict, error.message)
        case .ticketNotUsable:
            return APIError(.forbidden, error.message)
        case .unavailable, .busy, .full:
            // Fail fast and say so: a 503 a balancer and a client can retry, not a 500.
            logger.error("store fault", metadata: ["route": "\(route)", "error": "\(error.message)"])
            health?.recordFault(error, logger: logger)
            return error.code == .full
                ? APIError(.serviceUnavailable, "storage full; try again later", headers: [.retryAfter: Self.fullRetryAfter])
                : APIError(.serviceUnavailable, "storage unavailable; try again shortly", headers: [.retryAfter: Self.unavailableRetryAfter])
        case .userNotFound:
            return APIError(.notFound, error.message)
        default:
            logger.error("store failure", metadata: ["route": "\(route)", "error": "\(error.message)"])
            return APIError(.internalServerError, "internal storage error")
        }
    }
}
