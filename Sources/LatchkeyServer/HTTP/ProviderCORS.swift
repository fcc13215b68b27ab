import LatchkeyService
import NIOHTTP1

/// CORS for the OpenID provider's endpoints that a single-page app calls from its own origin (OAuth 2.0 for
/// Browser-Based Apps): the token, userinfo, revocation and device authorization endpoints, discovery and the key
/// set. Any origin may read their replies, without credentials (`Access-Control-Allow-Origin: *`, never
/// `Allow-Credentials`): none of them acts on a cookie, and what they answer is what the same request from a server
/// would get. A code is worth nothing without its PKCE verifier, a token without itself.
enum ProviderCORS {
    /// The paths, under a tenant's root.
    static let paths: Set<String> = [
        "/oidc/token", "/oidc/userinfo", "/oidc/revoke", "/oidc/device_authorization",
        "/.well-known/openid-configuration", "/.well-known/oauth-authorization-server", "/.well-known/jwks.json",
    ]
    static let allowedMethods = "GET, POST"
    static let allowedHeaders = "Authorization, Content-Type"
    static let exposedHeaders = "WWW-Authenticate, Retry-After, X-Request-ID"

    static func covers(_ request: Request) -> Bool { paths.contains(request.uri.path) }

    /// The answer to a preflight of one of the paths; nil for every other request.
    static func preflight(_ request: Request) -> Response? {
        guard request.method == .OPTIONS, request.headers[.accessControlRequestMethod] != nil, request.headers[.origin] != nil,
              covers(request)
        else { return nil }
        var response = Response(status: .noContent)
        response.headers[.accessControlAllowOrigin] = "*"
        response.headers[.accessControlAllowMethods] = allowedMethods
        response.headers[.accessControlAllowHeaders] = allowedHeaders
        response.headers[.accessControlMaxAge] = OriginCORS.preflightMaxAge
        return response
    }

    /// Lets any origin read the reply to one of the paths.
    static func decorate(_ response: inout Response, for request: Request) {
        response.headers[.accessControlAllowOrigin] = "*"
        response.headers[.accessControlExposeHeaders] = exposedHeaders
    }
}
