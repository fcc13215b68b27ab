import HTTPTypes
import LatchkeyService
import NIOHTTP1
import WebAuthn

/// A request the API refuses, with the status and the message the client sees: the transport's own refusals, and
/// the service's (``ServiceError``) once mapped to their status. ``response`` renders it as the JSON failure reply.
struct APIError: Error, Sendable {
    let status: HTTPResponseStatus
    let message: String
    var headers: [HTTPField.Name: String] = [:]
    /// A machine-readable reason, and the credential it is about, added to the body when set.
    var reason: FailureReason?
    var credentialID: [UInt8]?

    init(
        _ status: HTTPResponseStatus, _ message: String, headers: [HTTPField.Name: String] = [:], reason: FailureReason? = nil,
        credentialID: [UInt8]? = nil
    ) {
        self.status = status
        self.message = message
        self.headers = headers
        self.reason = reason
        self.credentialID = credentialID
    }

    static func badRequest(_ message: String) -> APIError { APIError(.badRequest, message) }

    /// `{"status":"failed","errorMessage":...}` with the status and headers.
    var response: Response {
        var response = JSONResponse.make(
            FailureReply(errorMessage: message, reason: reason, credentialId: credentialID.map { Base64URLBytes($0) }),
            status: status)
        for (name, value) in headers { response.headers.append(name, value) }
        return response
    }
}
