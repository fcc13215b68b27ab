import LatchkeyService
import LatchkeyStore
import NIOHTTP1
import WebAuthn

extension LatchkeyMetrics {
    /// The outcome label of a reply with `status`: `ok` below 400, else `http` and the code.
    static func outcome(status: HTTPResponseStatus) -> String {
        status.code < 400 ? "ok" : "http\(status.code)"
    }

    /// The outcome label of an error a ceremony step threw: the core's check name, the store's
    /// error code, the machine-readable reason, or the HTTP status.
    static func outcome(of error: any Error) -> String {
        switch error {
        case let error as WebAuthnError: error.code.description
        case let error as StoreError: error.code.description
        case let error as ServiceError: error.reason?.rawValue ?? outcome(status: APIError.status(of: error.code))
        case let error as APIError: error.reason?.rawValue ?? outcome(status: error.status)
        default: "error"
        }
    }
}
