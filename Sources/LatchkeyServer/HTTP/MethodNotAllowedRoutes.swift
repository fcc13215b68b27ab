import HTTPTypes
import Hummingbird

/// Answers a wrong method on a known path with 405 and an `Allow` header listing the methods the
/// path serves, instead of the router's 404, for every route of the router. OPTIONS is left alone
/// (CORS preflights in conformance mode), and HEAD wherever GET is served (the router answers it).
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
            let header = allow.joined(separator: ", ")
            let message = "\(path) takes \(allow.joined(separator: " or "))"
            for method in Self.methods where !allowed.contains(method) {
                router.on(path, method: method) { _, _ -> Response in
                    throw APIError(.methodNotAllowed, message, headers: [.allow: header])
                }
            }
        }
    }
}
