import HTTPTypes
import Hummingbird
import LatchkeyService

/// Answers a wrong method on a known path with 405 and an `Allow` header listing the methods the
/// path serves, instead of the router's 404, for every route of the router, and OPTIONS with 204 and
/// the same `Allow` (RFC 9110 §9.3.7). ``OriginCORSMiddleware`` answers the CORS preflights of the
/// origins it allows; a preflight that gets here, from any other origin, is a 403 that says so. HEAD
/// is left alone wherever GET is served (the router answers it).
enum MethodNotAllowedRoutes {
    /// The methods a path can be asked for (OPTIONS aside), TRACE, QUERY and CONNECT included.
    static let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .trace, .query, .connect]

    /// Adds the 405 routes; call after every other route is on `router`.
    static func add<Context: RequestContext>(to router: Router<Context>) {
        var served: [String: (path: RouterPath, methods: [HTTPRequest.Method])] = [:]
        for route in router.routes {
            served[route.path.description, default: (route.path, [])].methods.append(route.method)
        }
        for (path, methods) in served.values {
            var allowed = methods
            if allowed.contains(.get), !allowed.contains(.head) { allowed.append(.head) }
            let allow = methods.filter { $0 != .head }.map(\.rawValue).sorted()
                + (allowed.contains(.head) ? [HTTPRequest.Method.head.rawValue] : [])
            // Every known path answers OPTIONS too.
            let header = (allow + [HTTPRequest.Method.options.rawValue]).joined(separator: ", ")
            let message = "\(path) takes \(allow.joined(separator: " or "))"
            for method in Self.methods where !allowed.contains(method) {
                router.on(path, method: method) { _, _ -> Response in
                    throw APIError(.methodNotAllowed, message, headers: [.allow: header])
                }
            }
            if !allowed.contains(.options) {
                router.on(path, method: .options) { request, _ -> Response in
                    if request.headers[.accessControlRequestMethod] != nil {
                        if request.uri.path.hasPrefix(OriginCORSMiddleware<Context>.uncoveredPathPrefix) {
                            throw APIError(.forbidden, "the admin API answers no CORS preflight: backends call it, not pages")
                        }
                        let origin = request.headers[.origin] ?? "none"
                        throw APIError(.forbidden, "origin \(origin.debugDescription) may not call this API from its pages (see corsOrigins)")
                    }
                    return Response(status: .noContent, headers: [.allow: header])
                }
            }
        }
    }
}
