import Hummingbird

/// The outermost middleware: renders any error that reached it as a JSON
/// `{"status":"failed","errorMessage":...}` reply with the error's status and headers (CORS headers
/// added on the way out included), and logs each refused request at info (method, route, status
/// and the message the client got). Hummingbird's plain-text errors get a JSON body too. The route
/// is the matched template (`/credentials/{credentialId}`), so no credential ID or ticket in a path
/// reaches the log; only a request no route matched is logged with its path.
struct ErrorReplyMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // Set before any router middleware runs; nil when no route matched.
        let route = context.endpointPath ?? request.uri.path
        do {
            return try await next(request, context)
        } catch let error as APIError {
            context.logger.info("request refused", metadata: [
                "method": "\(request.method)", "route": "\(route)", "status": "\(error.status.code)",
                "errorMessage": "\(error.message.debugDescription)",
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
