import Hummingbird
import LatchkeyService

/// The outermost middleware: renders any error that reached it as a JSON
/// `{"status":"failed","errorMessage":...}` reply with the error's status and headers (CORS headers
/// added on the way out included), and logs each refused request at info (method, route, status
/// and the message the client got). Hummingbird's plain-text errors get a JSON body too. The route
/// is the matched template (`/credentials/{credentialId}`), so no credential ID or ticket in a path
/// reaches the log; a request no route matched is logged with its path cut short (``loggedRoute(of:)``).
struct ErrorReplyMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let route = context.loggedRoute(of: request)
        do {
            return try await next(request, context)
        } catch let error as APIError {
            context.logger.info("request refused", metadata: [
                "method": "\(request.method)", "route": "\(route)", "status": "\(error.status.code)",
                "errorMessage": .quoted(error.message),
            ])
            return try error.response(from: request, context: context)
        } catch let error as any HTTPResponseError {
            context.logger.info("request refused", metadata: [
                "method": "\(request.method)", "route": "\(route)", "status": "\(error.status.code)",
            ])
            let rendered = try? error.response(from: request, context: context)
            if let rendered, rendered.headers[.contentType]?.hasPrefix("application/json") == true {
                return rendered
            }
            let message = error.status == .notFound ? "no such endpoint: \(request.method) \(request.uri.path)" : error.status.reasonPhrase
            var response = JSONResponse.failed(message, status: error.status)
            for field in rendered?.headers ?? [:] where field.name != .contentType && field.name != .contentLength {
                response.headers.append(field)
            }
            return response
        } catch {
            context.logger.error("unexpected error", metadata: ["route": "\(route)", "error": "\(error)"])
            return JSONResponse.failed("internal error", status: .internalServerError)
        }
    }
}

extension RequestContext {
    /// What log lines name a request by: the matched route template (set before any router
    /// middleware runs), or for a path no route matched, the path with each segment longer than 12
    /// characters cut to its first 8, so that a token or credential ID sent in a path is not logged whole.
    func loggedRoute(of request: Request) -> String {
        if let endpointPath { return endpointPath }
        return request.uri.path.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.count > 12 ? $0.prefix(8) + "…" : $0 }
            .joined(separator: "/")
    }
}
