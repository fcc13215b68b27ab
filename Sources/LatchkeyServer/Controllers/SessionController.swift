import LatchkeyService
import WebAuthn

/// `GET /session` (who is signed in), `DELETE /session` (sign out) and its older alias
/// `POST /session/logout`. Identity comes from ``SessionAuthenticator``.
struct SessionController: Sendable {
    let routes: ServiceRoutes

    func addRoutes(to group: RouteGroup) {
        group.get(use: current)
        group.delete(use: signOut)
        group.post("logout", use: signOut)
    }

    @Sendable func current(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let (user, passkeys) = try await routes.service.account.current(caller: routes.caller(request, context))
        return JSONResponse.make(SessionReply(
            username: user.username, displayName: user.displayName, userHandle: Base64URLBytes(user.handle),
            rpId: routes.service.relyingParty.id, passkeys: passkeys))
    }

    /// Ends every session the request carries, so the token stops working at once. Without a live session it is a
    /// 401 like every signed-in route, but the cookie is cleared all the same, so a page holding an expired cookie
    /// ends up signed out either way.
    @Sendable func signOut(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        do {
            try await routes.service.account.signOut(caller: routes.caller(request, context))
        } catch let refusal as ServiceError where refusal.code == .notSignedIn {
            var error = APIError(refusal)
            error.headers[.setCookie] = routes.cookies.clearingSession().description
            throw error
        }
        var response = JSONResponse.ok()
        response.setCookie(routes.cookies.clearingSession())
        return response
    }
}
