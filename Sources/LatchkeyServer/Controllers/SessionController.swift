import Hummingbird
import LatchkeyService
import LatchkeyStore
import WebAuthn

/// `GET /session` (who is signed in), `DELETE /session` (sign out) and its older alias
/// `POST /session/logout`. Identity comes from ``SessionAuthenticator``.
struct SessionController: Sendable {
    let services: LatchkeyServices

    func addRoutes(to group: RouterGroup<LatchkeyRequestContext>) {
        group.get(use: current)
        group.delete(use: signOut)
        group.post("logout", use: signOut)
    }

    @Sendable func current(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let credentials = try await services.store.credentials(ofUser: identity.user.handle)
        return JSONResponse.make(SessionReply(
            username: identity.user.username, displayName: identity.user.displayName,
            userHandle: Base64URLBytes(identity.user.handle), rpId: services.relyingParty.id, passkeys: credentials.count))
    }

    /// Ends every session the request carries (bearer token and cookie), so the token stops working
    /// at once. Without a live session it is a 401 like every signed-in route, but the cookie is
    /// cleared all the same, so a page holding an expired cookie ends up signed out either way.
    @Sendable func signOut(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        guard let identity = context.identity else {
            var error = APIError(.unauthorized, "not signed in")
            error.headers[.setCookie] = services.sessions.clearingCookie().description
            throw error
        }
        try await services.sessions.end(
            request,
            recording: [services.events.event(.sessionEnded, context.eventOrigin(request), user: identity.user, detail: "signed out")])
        var response = JSONResponse.ok()
        response.setCookie(services.sessions.clearingCookie())
        return response
    }
}
