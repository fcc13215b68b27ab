import Hummingbird

/// The outermost middleware: renders any error that reached it as a JSON
/// `{"status":"failed","errorMessage":...}` reply with the error's status and headers (CORS headers
/// added on the way out included), and logs each refused request at info (method, path, status
/// and the message the client got). Hummingbird's plain-text errors get a JSON body too.
struct ErrorReplyMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            context.logger.info("request refused", metadata: [
                "method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(error.status.code)",
                "errorMessage": "\(error.message.debugDescription)",
            ])
            return try error.response(from: request, context: context)
        } catch let error as any HTTPResponseError {
            context.logger.info("request refused", metadata: [
                "method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(error.status.code)",
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
            context.logger.error("unexpected error", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            return JSONResponse.failed("internal error", status: .internalServerError)
        }
    }
}
