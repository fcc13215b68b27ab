import LatchkeyService
import WebAuthn

/// `POST /assertion/options` and `POST /assertion/result`: signing in with a passkey (§7.2, ``SignInService``),
/// with or without a username.
struct SignInController: Sendable {
    let routes: ServiceRoutes

    func addRoutes(to group: RouteGroup) {
        group.post("options", use: options)
        group.post("result", use: result)
    }

    @Sendable func options(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let body = try request.decode(as: SignInOptionsRequest.self)
        let issued = try await routes.service.signIn.options(
            body, caller: routes.caller(request, context), presented: routes.binding(.signIn, request))
        return routes.reply(issued, .signIn)
    }

    @Sendable func result(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let credential = try request.decode(as: SignInCredential.self)
        let signedIn = try await routes.service.signIn.finish(
            credential, caller: routes.caller(request, context), presented: routes.binding(.signIn, request))
        return routes.reply(signedIn, answering: .signIn)
    }
}
