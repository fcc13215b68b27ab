import Hummingbird
import LatchkeyStore
import WebAuthn

/// `GET /session` (who is signed in) and `POST /session/logout`. Identity comes from
/// ``SessionAuthenticator``.
struct SessionController: Sendable {
    let services: LatchkeyServices

    func addRoutes(to group: RouterGroup<LatchkeyRequestContext>) {
        group.get(use: current)
        group.post("logout", use: logout)
    }

    @Sendable func current(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let credentials = try await services.store.credentials(ofUser: identity.user.handle)
        return JSONResponse.make(SessionReply(
            username: identity.user.username, displayName: identity.user.displayName,
            userHandle: Base64URLBytes(identity.user.handle), passkeys: credentials.count))
    }

    @Sendable func logout(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        try await services.sessions.end(request)
        var response = JSONResponse.ok()
        response.setCookie(services.sessions.clearingCookie())
        return response
    }
}
