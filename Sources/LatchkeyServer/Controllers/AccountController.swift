import Hummingbird
import LatchkeyService
import LatchkeyStore
import WebAuthn

/// `DELETE /account`: removes the signed-in user with every passkey, session and pending ceremony
/// of theirs, in one store transaction. The username is free to register again afterwards.
struct AccountController: Sendable {
    let services: LatchkeyServices

    func addRoutes(to group: RouterGroup<LatchkeyRequestContext>) {
        group.delete(use: delete)
    }

    @Sendable func delete(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let user = try context.requireIdentity().user
        // Nil: deleted by a racing request since the session was read; the outcome is the same.
        let event = try services.events.event(.accountDeleted, context.eventOrigin(request), user: user)
        let removed = try await services.store.deleteUser(handle: user.handle, recording: [event]) ?? []
        for id in removed {
            services.authenticationVerifier.keyCache?.invalidate(credentialID: id)
        }
        context.logger.notice("account deleted", metadata: [
            "user": .quoted(user.username), "passkeys": "\(removed.count)",
        ])
        var response = JSONResponse.ok()
        response.setCookie(services.sessions.clearingCookie())
        return response
    }
}
