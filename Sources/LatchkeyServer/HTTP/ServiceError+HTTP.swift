import HTTPTypes
import LatchkeyService

extension APIError {
    /// The reply to a refusal of the service: the one place a ``ServiceError/Code`` becomes an HTTP status.
    init(_ refusal: ServiceError) {
        let status: HTTPResponse.Status = switch refusal.code {
        case .invalidInput: .badRequest
        case .notSignedIn: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .conflict: .conflict
        case .tooManyPending: .tooManyRequests
        case .busy: .serviceUnavailable
        case .internalInvariant: .internalServerError
        }
        var headers: HTTPFields = [:]
        if let seconds = refusal.retryAfterSeconds { headers[.retryAfter] = String(seconds) }
        self.init(status, refusal.message, headers: headers, reason: refusal.reason, credentialID: refusal.credentialID)
    }
}
