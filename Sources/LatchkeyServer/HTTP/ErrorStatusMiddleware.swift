import Hummingbird
import LatchkeyService
import LatchkeyStore
import Logging
import WebAuthn

/// The innermost middleware: turns what handlers throw into ``APIError``s with the right status.
/// Verification and input errors become 4xx with their message; a store, cryptography or unexpected
/// failure becomes a 500 whose details go to the log only. Hummingbird's own HTTP errors (such as
/// "not found", which the file middleware relies on) pass through.
struct ErrorStatusMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Told of store faults, so that readiness turns 503 at once.
    var health: StoreHealth?

    /// Seconds a client is asked to wait when the store is unavailable, and when it is full.
    static var unavailableRetryAfter: String { "5" }
    static var fullRetryAfter: String { "60" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            throw error
        } catch let error as ServiceError {
            throw APIError(error)
        } catch let error as WebAuthnError where error.code == .cryptoFailure {
            context.logger.error("cryptography failure", metadata: ["route": "\(context.loggedRoute(of: request))", "error": "\(error.message)"])
            throw APIError(.internalServerError, "internal cryptography error")
        } catch let error as WebAuthnError {
            // Logged at info by ``ErrorReplyMiddleware``, with the message that names the check.
            throw APIError(.badRequest, error.message)
        } catch let error as StoreError {
            switch error.code {
            case .usernameTaken, .credentialAlreadyRegistered, .externalIdTaken, .nameTaken:
                throw APIError(.conflict, error.message)
            case .ticketNotUsable:
                throw APIError(.forbidden, error.message)
            case .unavailable, .busy, .full:
                // Fail fast and say so: a 503 a balancer and a client can retry, not a 500.
                context.logger.error("store fault", metadata: ["route": "\(context.loggedRoute(of: request))", "error": "\(error.message)"])
                health?.recordFault(error, logger: context.logger)
                throw error.code == .full
                    ? APIError(.serviceUnavailable, "storage full; try again later", headers: [.retryAfter: Self.fullRetryAfter])
                    : APIError(.serviceUnavailable, "storage unavailable; try again shortly", headers: [.retryAfter: Self.unavailableRetryAfter])
            case .userNotFound:
                throw APIError(.notFound, error.message)
            default:
                context.logger.error("store failure", metadata: ["route": "\(context.loggedRoute(of: request))", "error": "\(error.message)"])
                throw APIError(.internalServerError, "internal storage error")
            }
        } catch {
            context.logger.error("unexpected error", metadata: ["route": "\(context.loggedRoute(of: request))", "error": "\(error)"])
            throw APIError(.internalServerError, "internal error")
        }
    }
}
