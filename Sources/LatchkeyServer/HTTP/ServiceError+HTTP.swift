import HTTPTypes
import LatchkeyService
import NIOHTTP1

extension APIError {
    /// The reply to a refusal of the service: the one place a ``ServiceError/Code`` becomes an HTTP status.
    init(_ refusal: ServiceError) {
        var headers: [HTTPField.Name: String] = [:]
        if let seconds = refusal.retryAfterSeconds { headers[.retryAfter] = String(seconds) }
        self.init(Self.status(of: refusal.code), refusal.message, headers: headers, reason: refusal.reason, credentialID: refusal.credentialID)
    }

    /// The status a refusal with `code` is answered with.
    static func status(of code: ServiceError.Code) -> HTTPResponseStatus {
        switch code {
        case .invalidInput: .badRequest
        case .notSignedIn: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .conflict: .conflict
        case .tooManyPending: .tooManyRequests
        case .busy: .serviceUnavailable
        case .internalInvariant: .internalServerError
        }
    }
}
