import Hummingbird
import LatchkeyService
import WebAuthn

/// `POST /assertion/options` and `POST /assertion/result`: signing in with a passkey (§7.2, ``SignInService``),
/// with or without a username.
struct SignInController: Sendable {
    let routes: ServiceRoutes

    func addRoutes(to group: RouterGroup<LatchkeyRequestContext>) {
        group.post("options", use: options)
        group.post("result", use: result)
    }

    @Sendable func options(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let body = try await request.decode(as: SignInOptionsRequest.self, context: context)
        let issued = try await routes.service.signIn.options(
            body, caller: routes.caller(request, context), presented: routes.binding(.signIn, request))
        return routes.reply(issued, .signIn)
    }

    @Sendable func result(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let credential = try await request.decode(as: SignInCredential.self, context: context)
        let signedIn = try await routes.service.signIn.finish(
            credential, caller: routes.caller(request, context), presented: routes.binding(.signIn, request))
        return routes.reply(signedIn, answering: .signIn)
    }
}
