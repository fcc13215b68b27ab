import HTTPTypes
import Hummingbird
import LatchkeyService
import WebAuthn

/// A request the API refuses, with the status and the message the client sees: the transport's own refusals, and
/// the service's (``ServiceError``) once mapped to their status. It renders itself
/// as the JSON failure reply, so middleware that decorates errors (CORS) keeps status and body.
struct APIError: HTTPResponseError, Sendable {
    let status: HTTPResponse.Status
    let message: String
    var headers: HTTPFields = [:]
    /// A machine-readable reason, and the credential it is about, added to the body when set.
    var reason: FailureReason?
    var credentialID: [UInt8]?

    init(
        _ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:], reason: FailureReason? = nil,
        credentialID: [UInt8]? = nil
    ) {
        self.status = status
        self.message = message
        self.headers = headers
        self.reason = reason
        self.credentialID = credentialID
    }

    static func badRequest(_ message: String) -> APIError { APIError(.badRequest, message) }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = JSONResponse.make(
            FailureReply(errorMessage: message, reason: reason, credentialId: credentialID.map { Base64URLBytes($0) }),
            status: status)
        response.headers.append(contentsOf: headers)
        return response
    }
}
