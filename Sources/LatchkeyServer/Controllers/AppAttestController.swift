import LatchkeyService
import WebAuthn

/// `/app-attest`: challenges, key attestation and assertions of Apple's App Attest
/// (`DCAppAttestService`), served when `appAttest` is not `off`. See ``AppAttestService``.
struct AppAttestController: Sendable {
    let routes: ServiceRoutes

    func addRoutes(to group: RouteGroup) {
        group.post("challenge", use: challenge)
        group.post("keys", use: attest)
        group.post("assertions", use: assert)
    }

    @Sendable func challenge(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let issued = try await routes.service.appAttestation.challenge(
            caller: routes.caller(request, context), presented: routes.binding(.appAttest, request))
        var response = JSONResponse.make(
            AppAttestChallengeReply(challenge: Base64URLBytes(issued.challenge), timeout: routes.service.timeoutMilliseconds))
        response.setCookie(routes.cookies.ceremony(.appAttest, holding: issued.bindings))
        return response
    }

    @Sendable func attest(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let body = try request.decode(as: AppAttestKeyRequest.self)
        let key = try await routes.service.appAttestation.attest(
            body, caller: routes.caller(request, context), presented: routes.binding(.appAttest, request))
        var response = JSONResponse.make(
            AppAttestKeyReply(keyId: Base64URLBytes(key.keyID), appId: key.appID, environment: key.environment), status: .created)
        response.setCookie(routes.cookies.clearingCeremony(.appAttest))
        return response
    }

    @Sendable func assert(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let body = try request.decode(as: AppAttestAssertionRequest.self)
        let (key, counter) = try await routes.service.appAttestation.assert(body, presented: routes.binding(.appAttest, request))
        var response = JSONResponse.make(AppAttestAssertionReply(keyId: Base64URLBytes(key.keyID), appId: key.appID, counter: counter))
        response.setCookie(routes.cookies.clearingCeremony(.appAttest))
        return response
    }
}
