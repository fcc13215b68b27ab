import HTTPTypes
import Hummingbird
import WebAuthn

/// A request the API refuses, with the status and the message the client sees. It renders itself
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

    /// A 500 for a state the server's own code should never reach (not a store fault): `detail`
    /// names it, in the reply and in the log line of the refusal.
    static func internalInvariant(_ detail: String) -> APIError {
        APIError(.internalServerError, "internal error: \(detail)")
    }

    /// A 400 for a passkey the server does not know, with `"reason":"unknownCredential"` and its ID.
    static func unknownCredential(_ id: [UInt8], rpID: String) -> APIError {
        APIError(.badRequest, "this passkey is not registered with \(rpID)", reason: .unknownCredential, credentialID: id)
    }

    /// A 403 for an account the backend disabled, with `"reason":"accountDisabled"`.
    static func accountDisabled(_ username: String) -> APIError {
        APIError(.forbidden, "the account \(username.debugDescription) is disabled; ask the service that runs it", reason: .accountDisabled)
    }

    /// A 400 for a device key the server does not know, with `"reason":"unknownDeviceKey"`.
    static func unknownDeviceKey(_ id: [UInt8]) -> APIError {
        APIError(
            .badRequest, "this device key is not enrolled (it was removed, or its account deleted): enrol a new one",
            reason: .unknownDeviceKey, credentialID: id)
    }

    /// A 400 for an App Attest key the server never attested, with `"reason":"unknownAppAttestKey"`.
    static func unknownAppAttestKey(_ id: [UInt8]) -> APIError {
        APIError(
            .badRequest, "this App Attest key was never attested here: attest a new key with POST /app-attest/keys",
            reason: .unknownAppAttestKey, credentialID: id)
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = JSONResponse.make(
            FailureReply(errorMessage: message, reason: reason, credentialId: credentialID.map { Base64URLBytes($0) }),
            status: status)
        response.headers.append(contentsOf: headers)
        return response
    }
}
