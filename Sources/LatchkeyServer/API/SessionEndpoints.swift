import Hummingbird
import LatchkeyStore
import Logging
import WebAuthn

/// `GET /session` (who is signed in) and `POST /session/logout`.
struct SessionEndpoints: Sendable {
    let services: LatchkeyServices

    func current(_ request: Request) async throws -> Response {
        guard let session = try await services.sessions.current(request),
              let user = try await services.store.user(handle: session.userHandle) else {
            throw APIError(.unauthorized, "not signed in")
        }
        let credentials = try await services.store.credentials(ofUser: user.handle)
        return JSONResponse.ok([
            "username": .string(user.username),
            "displayName": .string(user.displayName),
            "passkeys": .number(Double(credentials.count)),
        ])
    }

    func logout(_ request: Request) async throws -> Response {
        try await services.sessions.end(request)
        var response = JSONResponse.ok()
        response.setCookie(services.sessions.clearingCookie())
        return response
    }
}
