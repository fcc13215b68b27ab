import LatchkeyService

/// Resolves the request's session once, before the route runs: the token from
/// `Authorization: Bearer` (first) or the session cookie, looked up by its hash. Sets
/// ``LatchkeyRequestContext/identity``; a missing, unknown or expired token leaves it nil, and the
/// route decides whether that is a 401.
struct SessionAuthenticator: RouteMiddleware {
    let sessions: Sessions
    let cookies: ServiceCookies

    func handle(_ request: Request, context: LatchkeyRequestContext, next: RouteHandler) async throws -> Response {
        var context = context
        context.identity = try await sessions.current(presented: cookies.sessionTokens(in: request))
        return try await next(request, context)
    }
}
