import LatchkeyService

/// `DELETE /account`: removes the signed-in user with every passkey, session and pending ceremony
/// of theirs, in one store transaction (``AccountService``).
struct AccountController: Sendable {
    let routes: ServiceRoutes

    func addRoutes(to group: RouteGroup) {
        group.delete(use: delete)
    }

    @Sendable func delete(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        try await routes.service.account.delete(caller: routes.caller(request, context))
        var response = JSONResponse.ok()
        response.setCookie(routes.cookies.clearingSession())
        return response
    }
}
