import Hummingbird
import LatchkeyService

/// Carries a route's own 404 ("user "a..b" does not exist") past the file middleware, which takes every 404 it sees
/// for a missing file and looks for one: for a path with `..` anywhere in it (a username `a..b` or `x/...`) it then
/// answers a bare 400 "Bad Request" in place of the route's message. The inner part, next to the routes, wraps such
/// a 404; the outer part, just outside the file middleware, unwraps it. The router's own "no such route" is
/// Hummingbird's error, never wrapped, so files are still served.
struct RouteNotFoundShield<Context: RequestContext>: RouterMiddleware {
    enum Side { case outsideFileMiddleware, insideFileMiddleware }
    let side: Side

    /// A route's 404 on its way out, unseen by the file middleware.
    struct Wrapped: Error {
        let error: APIError
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        switch side {
        case .insideFileMiddleware:
            do {
                return try await next(request, context)
            } catch let error as APIError where error.status == .notFound {
                throw Wrapped(error: error)
            }
        case .outsideFileMiddleware:
            do {
                return try await next(request, context)
            } catch let wrapped as Wrapped {
                throw wrapped.error
            }
        }
    }
}
