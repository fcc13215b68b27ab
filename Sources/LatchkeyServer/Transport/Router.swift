import NIOHTTP1

/// A route's handler that may suspend (a store call, a session lookup): it runs in a task.
public typealias RouteHandler = @Sendable (Request, LatchkeyRequestContext) async throws -> Response
/// A route's handler that cannot suspend: it runs on the connection's event loop, without a task.
public typealias ImmediateRouteHandler = @Sendable (Request, LatchkeyRequestContext) throws -> Response

/// What a route does with a request it matched.
enum RouteWork: Sendable {
    case immediate(ImmediateRouteHandler)
    case suspending(RouteHandler)
}

/// Work a group of routes shares, around each of its handlers (such as resolving the session): it runs in the
/// route's task and calls `next` to go on.
protocol RouteMiddleware: Sendable {
    func handle(_ request: Request, context: LatchkeyRequestContext, next: RouteHandler) async throws -> Response
}

/// One route: a method on a path template such as `/credentials/{id}`.
public struct Route: Sendable {
    public let method: HTTPMethod
    /// The template, with a leading `/` and `{name}` for each parameter.
    public let template: String
    let work: RouteWork
}

/// Collects routes while the server is put together; ``table()`` makes the immutable table requests are matched
/// against.
public final class Router {
    public private(set) var routes: [Route] = []

    public init() {}

    /// Routes under `prefix` (no leading or trailing `/` needed).
    func group(_ prefix: String) -> RouteGroup {
        RouteGroup(router: self, prefix: RoutePath.joined("", prefix), middleware: [])
    }

    func on(_ method: HTTPMethod, _ path: String, work: RouteWork) {
        routes.append(Route(method: method, template: RoutePath.joined("", path), work: work))
    }

    /// A route whose handler may suspend.
    func on(_ method: HTTPMethod, _ path: String, use handler: @escaping RouteHandler) {
        on(method, path, work: .suspending(handler))
    }

    /// `GET path`, answered on the event loop: for handlers that never wait for anything.
    func get(_ path: String, immediately handler: @escaping ImmediateRouteHandler) {
        on(.GET, path, work: .immediate(handler))
    }

    func get(_ path: String, use handler: @escaping RouteHandler) { on(.GET, path, use: handler) }

    /// The table of every route added so far.
    func table() -> RouteTable { RouteTable(routes) }
}

/// Routes under one path prefix that share middleware, innermost last.
struct RouteGroup {
    let router: Router
    let prefix: String
    let middleware: [any RouteMiddleware]

    /// The group with `middleware` run around its routes' handlers, inside the middleware it already has.
    func add(middleware: some RouteMiddleware) -> RouteGroup {
        RouteGroup(router: router, prefix: prefix, middleware: self.middleware + [middleware])
    }

    /// Routes under `prefix` within this group, with its middleware.
    func group(_ path: String) -> RouteGroup {
        RouteGroup(router: router, prefix: RoutePath.joined(prefix, path), middleware: middleware)
    }

    func on(_ method: HTTPMethod, _ path: String, use handler: @escaping RouteHandler) {
        var wrapped = handler
        for layer in middleware.reversed() {
            let next = wrapped
            wrapped = { request, context in try await layer.handle(request, context: context, next: next) }
        }
        router.on(method, RoutePath.joined(prefix, path), work: .suspending(wrapped))
    }

    func get(_ path: String = "", use handler: @escaping RouteHandler) { on(.GET, path, use: handler) }
    func post(_ path: String = "", use handler: @escaping RouteHandler) { on(.POST, path, use: handler) }
    func patch(_ path: String = "", use handler: @escaping RouteHandler) { on(.PATCH, path, use: handler) }
    func put(_ path: String = "", use handler: @escaping RouteHandler) { on(.PUT, path, use: handler) }
    func delete(_ path: String = "", use handler: @escaping RouteHandler) { on(.DELETE, path, use: handler) }

    /// `GET path`, answered on the event loop (no middleware of the group runs: such a group has none).
    func get(_ path: String, immediately handler: @escaping ImmediateRouteHandler) {
        precondition(middleware.isEmpty, "a route answered on the event loop cannot run suspending middleware")
        router.on(.GET, RoutePath.joined(prefix, path), work: .immediate(handler))
    }
}

/// Paths as templates and as requests name them.
enum RoutePath {
    /// `prefix` and `path` as one template with a leading `/` and no empty segment.
    static func joined(_ prefix: String, _ path: String) -> String {
        "/" + (prefix.split(separator: "/") + path.split(separator: "/")).joined(separator: "/")
    }

    /// A request's path with empty segments dropped (`//assertion//options/` is `/assertion/options`), as routes
    /// are matched: without copying it when it has none.
    static func normalized(_ path: String) -> String {
        let bytes = path.utf8
        guard bytes.first == UInt8(ascii: "/") else { return path }
        var previousWasSlash = false
        var needsWork = bytes.count > 1 && bytes.last == UInt8(ascii: "/")
        if !needsWork {
            for byte in bytes {
                let isSlash = byte == UInt8(ascii: "/")
                if isSlash && previousWasSlash { needsWork = true; break }
                previousWasSlash = isSlash
            }
        }
        return needsWork ? joined("", path) : path
    }
}

/// The routes of one listener, by path: a path with no parameter is found in one dictionary look-up, a template
/// (`/admin/v1/users/{username}`) by its segments. The cost of a match does not grow with the literal routes.
struct RouteTable: Sendable {
    /// Everything served at one path template.
    struct PathRoutes: Sendable {
        let template: String
        /// By method name.
        private(set) var work: [String: RouteWork] = [:]
        /// `Allow`: the methods, HEAD where GET is, and OPTIONS.
        private(set) var allow = ""
        /// What a wrong method is told: `/session takes DELETE or GET or HEAD`.
        private(set) var wrongMethodMessage = ""

        init(template: String) {
            self.template = template
        }

        mutating func add(_ route: Route) {
            work[route.method.rawValue] = route.work
            let methods = work.keys.filter { $0 != "HEAD" }.sorted() + (work["GET"] != nil || work["HEAD"] != nil ? ["HEAD"] : [])
            allow = (methods + ["OPTIONS"]).joined(separator: ", ")
            wrongMethodMessage = "\(template) takes \(methods.joined(separator: " or "))"
        }

        /// The work for `method`: its own, or for HEAD, GET's (whose body is then not sent).
        func work(for method: HTTPMethod) -> RouteWork? {
            work[method.rawValue] ?? (method == .HEAD ? work["GET"] : nil)
        }
    }

    /// A template's segments: a literal, or the name of a parameter.
    private enum Segment: Sendable {
        case literal(Substring)
        case parameter(Substring)
    }

    private var literal: [String: PathRoutes] = [:]
    private var templated: [(segments: [Segment], routes: PathRoutes)] = []

    init(_ routes: [Route]) {
        for route in routes {
            let segments = route.template.split(separator: "/").map { part -> Segment in
                part.hasPrefix("{") && part.hasSuffix("}") ? .parameter(part.dropFirst().dropLast()) : .literal(part)
            }
            if segments.allSatisfy({ if case .literal = $0 { true } else { false } }) {
                literal[route.template, default: PathRoutes(template: route.template)].add(route)
            } else if let index = templated.firstIndex(where: { $0.routes.template == route.template }) {
                templated[index].routes.add(route)
            } else {
                var entry = PathRoutes(template: route.template)
                entry.add(route)
                templated.append((segments, entry))
            }
        }
    }

    /// What is served at `path` (as sent, percent-encoded), with the parameters its template names.
    func match(_ path: String) -> (routes: PathRoutes, parameters: Parameters)? {
        let normalized = RoutePath.normalized(path)
        if let routes = literal[normalized] { return (routes, Parameters()) }
        let parts = normalized.split(separator: "/")
        candidates: for (segments, routes) in templated where segments.count == parts.count {
            var parameters = Parameters()
            for (segment, part) in zip(segments, parts) {
                switch segment {
                case .literal(let text): guard text == part else { continue candidates }
                case .parameter(let name): parameters.append(name, part)
                }
            }
            return (routes, parameters)
        }
        return nil
    }
}
