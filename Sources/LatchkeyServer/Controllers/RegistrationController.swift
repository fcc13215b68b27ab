import LatchkeyService
import WebAuthn

/// `POST /attestation/options` and `POST /attestation/result`: registering a passkey (§7.1, ``RegistrationService``).
struct RegistrationController: Sendable {
    let routes: ServiceRoutes

    /// Both run behind ``SessionAuthenticator``: adding a passkey to an existing user needs that user's
    /// session when the options are asked for and still when the result comes; `result` finds its
    /// ceremony from the challenge.
    func addRoutes(authenticated: RouteGroup) {
        authenticated.post("options", use: options)
        authenticated.post("result", use: result)
    }

    @Sendable func options(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let bytes = try WireDecoder.body(of: request)
        let body = try WireDecoder.decode(RegistrationOptionsRequest.self, from: bytes)
        let issued = try await routes.service.registration.options(
            body, appAttestation: routes.appAttestProof(request, body: bytes), caller: routes.caller(request, context),
            presented: routes.binding(.registration, request))
        return routes.reply(issued, .registration)
    }

    @Sendable func result(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let credential = try request.decode(as: RegistrationCredential.self)
        let registered = try await routes.service.registration.finish(
            credential, caller: routes.caller(request, context), presented: routes.binding(.registration, request))
        let response = JSONResponse.make(RegistrationReply(
            username: registered.username, credentialId: Base64URLBytes(registered.credentialID),
            attestationFormat: registered.attestationFormat, attestationType: registered.attestationType,
            attestationTrusted: registered.attestationTrusted, userVerified: registered.userVerified,
            sessionToken: registered.session?.token, idToken: registered.idToken))
        return routes.ending(.registration, with: response, session: registered.session?.token)
    }
}
