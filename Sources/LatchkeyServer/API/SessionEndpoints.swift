import Hummingbird
import LatchkeyStore
import WebAuthn

/// `GET /session` (who is signed in) and `POST /session/logout`.
struct SessionEndpoints: Sendable {
    let context: CeremonyContext

    func current(_ request: Request) async throws -> Response {
        guard let session = try await context.sessions.current(request),
              let user = try await context.store.user(handle: session.userHandle) else {
            throw APIError(.unauthorized, "not signed in")
        }
        let credentials = try await context.store.credentials(ofUser: user.handle)
        return JSONResponse.ok([
            "username": .string(user.username),
            "displayName": .string(user.displayName),
            "passkeys": .number(Double(credentials.count)),
        ])
    }

    func logout(_ request: Request) async throws -> Response {
        try await context.sessions.end(request)
        var response = JSONResponse.ok()
        response.setCookie(context.sessions.clearingCookie())
        return response
    }
}
