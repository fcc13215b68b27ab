import LatchkeyService
import NIOHTTP1

/// CORS with credentials for the origins it allows: replies to their requests, errors included,
/// name the request's origin in `Access-Control-Allow-Origin` and carry
/// `Access-Control-Allow-Credentials`, and their preflights are answered here. A request from any
/// other origin passes untouched and its reply has no CORS headers, so a browser keeps it from that
/// page. The admin API never gets CORS: backends call it, not pages.
struct OriginCORS: Sendable {
    /// The origins whose pages may read replies.
    enum AllowedOrigins: Sendable, Equatable {
        /// Every origin (conformance mode: the FIDO tool's page calls from its own).
        case any
        /// Exactly these serialized origins (`corsOrigins`).
        case only(Set<String>)

        func allow(_ origin: String) -> Bool {
            guard origin != "null" else { return false }
            switch self {
            case .any: return true
            case .only(let origins): return origins.contains(origin)
            }
        }
    }

    let allowed: AllowedOrigins

    /// What a preflight may ask for: the API's methods and the two headers its clients send.
    static var allowedMethods: String { "GET, HEAD, POST, PATCH, DELETE" }
    static var allowedHeaders: String { "Content-Type, Authorization" }
    /// Headers a page may read besides the CORS-safelisted ones.
    static var exposedHeaders: String { "Retry-After, X-Request-ID" }
    /// Paths under this prefix (the admin API) get no CORS headers, whatever the origin.
    static var uncoveredPathPrefix: String { "/admin/" }
    /// Seconds a browser may keep a preflight's answer.
    static var preflightMaxAge: String { "600" }

    /// The origin whose page may read the reply to `request`, when it is one this allows.
    private func allowedOrigin(of request: Request) -> String? {
        guard !request.uri.path.hasPrefix(Self.uncoveredPathPrefix), let origin = request.headers[.origin], allowed.allow(origin) else {
            return nil
        }
        return origin
    }

    /// The answer to a preflight from an allowed origin; nil for every other request.
    func preflight(_ request: Request) -> Response? {
        guard request.method == .OPTIONS, request.headers[.accessControlRequestMethod] != nil, let origin = allowedOrigin(of: request) else {
            return nil
        }
        var response = Response(status: .noContent)
        response.headers[.accessControlAllowMethods] = Self.allowedMethods
        response.headers[.accessControlAllowHeaders] = Self.allowedHeaders
        response.headers[.accessControlMaxAge] = Self.preflightMaxAge
        Self.allow(origin, in: &response.headers)
        return response
    }

    /// Adds the CORS headers to the reply to `request` (not to a preflight's, which has them).
    func decorate(_ response: inout Response, for request: Request) {
        guard !request.uri.path.hasPrefix(Self.uncoveredPathPrefix) else { return }
        guard let origin = allowedOrigin(of: request) else {
            // The reply to an allowed origin differs: a shared cache (of /.well-known/jwks.json, say) keeps them apart.
            response.headers.append(.vary, "Origin")
            return
        }
        response.headers[.accessControlExposeHeaders] = Self.exposedHeaders
        Self.allow(origin, in: &response.headers)
    }

    private static func allow(_ origin: String, in headers: inout HTTPHeaders) {
        headers[.accessControlAllowOrigin] = origin
        headers[.accessControlAllowCredentials] = "true"
        headers.append(.vary, "Origin")
    }
}
