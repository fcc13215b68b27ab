import Hummingbird
import LatchkeyStore
import Logging
import WebAuthn

/// Turns every error into a JSON `{"status":"failed","errorMessage":...}` reply. Verification and
/// input errors become 4xx with their message; only a store or internal failure is a 500, and its
/// details go to the log, not to the client.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return JSONResponse.failed(error.message, status: error.status)
        } catch let error as WebAuthnError {
            context.logger.info("ceremony refused", metadata: ["path": "\(request.uri.path)", "check": "\(error.code)", "reason": "\(error.message.debugDescription)"])
            return JSONResponse.failed(error.message, status: .badRequest)
        } catch let error as StoreError {
            switch error.code {
            case .usernameTaken, .credentialAlreadyRegistered:
                return JSONResponse.failed(error.message, status: .conflict)
            case .userNotFound:
                return JSONResponse.failed(error.message, status: .notFound)
            default:
                context.logger.error("store failure", metadata: ["path": "\(request.uri.path)", "error": "\(error.message)"])
                return JSONResponse.failed("internal storage error", status: .internalServerError)
            }
        } catch let error as any HTTPResponseError {
            let message = error.status == .notFound ? "no such endpoint: \(request.method) \(request.uri.path)" : error.status.reasonPhrase
            return JSONResponse.failed(message, status: error.status)
        } catch {
            context.logger.error("unexpected error", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            return JSONResponse.failed("internal error", status: .internalServerError)
        }
    }
}
