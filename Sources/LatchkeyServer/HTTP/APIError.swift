import HTTPTypes
import Hummingbird

/// A request the API refuses, with the status and the message the client sees. It renders itself
/// as the JSON failure reply, so middleware that decorates errors (CORS) keeps status and body.
struct APIError: HTTPResponseError, Sendable {
    let status: HTTPResponse.Status
    let message: String
    var headers: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    static func badRequest(_ message: String) -> APIError { APIError(.badRequest, message) }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = JSONResponse.failed(message, status: status)
        response.headers.append(contentsOf: headers)
        return response
    }
}
