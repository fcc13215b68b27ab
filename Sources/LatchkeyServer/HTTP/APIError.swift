import Hummingbird

/// A request the API refuses, with the status and the message the client sees.
struct APIError: Error, Sendable {
    let status: HTTPResponse.Status
    let message: String

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    static func badRequest(_ message: String) -> APIError { APIError(.badRequest, message) }
}
