/// A refusal of the provider's back-channel endpoints (token, userinfo, revocation, introspection), in OAuth's words
/// (RFC 6749 §5.2, RFC 6750 §3.1): the code a client acts on and a sentence for the person reading the log.
package struct OAuthError: Error, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable {
        case invalidRequest = "invalid_request"
        case invalidClient = "invalid_client"
        case invalidGrant = "invalid_grant"
        case unauthorizedClient = "unauthorized_client"
        case unsupportedGrantType = "unsupported_grant_type"
        case invalidScope = "invalid_scope"
        case invalidToken = "invalid_token"
        case insufficientScope = "insufficient_scope"
        // A device's polls (RFC 8628 §3.5).
        case authorizationPending = "authorization_pending"
        case slowDown = "slow_down"
        case accessDenied = "access_denied"
        case expiredToken = "expired_token"
    }

    package let code: Code
    package let message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { "\(code.rawValue): \(message)" }
}

/// An error the authorization endpoint sends back to the client's redirect URI (RFC 6749 §4.1.2.1, OpenID Connect
/// Core §3.1.2.6).
package struct AuthorizationError: Error, Sendable {
    package let code: String
    package let message: String

    package init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }

    static func invalidRequest(_ message: String) -> Self { Self("invalid_request", message) }
}
