import LatchkeyService
import LatchkeyStore
import WebAuthn

/// `/device-keys`: enrolling, listing, renaming and removing an app's device keys, and signing in with one
/// (``DeviceKeyService``).
struct DeviceKeysController: Sendable {
    let routes: ServiceRoutes

    /// Enrollment, listing and removal run behind ``SessionAuthenticator``; sign-in does not.
    func addRoutes(authenticated: RouteGroup, signIn: RouteGroup) {
        authenticated.post("options", use: enrollmentOptions)
        authenticated.post(use: enroll)
        authenticated.get(use: list)
        authenticated.patch("{keyId}", use: rename)
        authenticated.delete("{keyId}", use: remove)
        signIn.post("options", use: signInOptions)
        signIn.post(use: self.signIn)
    }

    @Sendable func enrollmentOptions(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        // Without a body, the options are for the signed-in user; with one, for the user its ticket names.
        let ticket = request.headers[.contentType] == nil
            ? nil : try request.decode(as: DeviceKeyEnrollmentOptionsRequest.self).enrollmentTicket
        let issued = try await routes.service.deviceKeys.enrollmentOptions(
            ticket: ticket, caller: routes.caller(request, context), presented: routes.binding(.deviceKeyEnrollment, request))
        return routes.reply(issued, .deviceKeyEnrollment)
    }

    @Sendable func enroll(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let bytes = try WireDecoder.body(of: request)
        let body = try WireDecoder.decode(DeviceKeyEnrollmentRequest.self, from: bytes)
        let keyID = try await routes.service.deviceKeys.enroll(
            body, appAttestation: routes.appAttestProof(request, body: bytes), caller: routes.caller(request, context),
            presented: routes.binding(.deviceKeyEnrollment, request))
        var response = JSONResponse.make(DeviceKeyEnrolledReply(keyId: Base64URLBytes(keyID)), status: .created)
        response.setCookie(routes.cookies.clearingCeremony(.deviceKeyEnrollment))
        return response
    }

    @Sendable func list(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let keys = try await routes.service.deviceKeys.list(caller: routes.caller(request, context))
        return JSONResponse.make(DeviceKeyListReply(deviceKeys: keys.map(DeviceKeySummary.init)))
    }

    @Sendable func rename(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let caller = try routes.signedInCaller(request, context)
        let body = try request.decode(as: RenameCredentialRequest.self)
        let renamed = try await routes.service.deviceKeys.rename(ServiceRoutes.id("keyId", in: context), to: body.name, caller: caller)
        return JSONResponse.make(DeviceKeyReply(deviceKey: DeviceKeySummary(renamed)))
    }

    @Sendable func remove(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        try await routes.service.deviceKeys.remove(ServiceRoutes.id("keyId", in: context), caller: routes.caller(request, context))
        return JSONResponse.ok()
    }

    @Sendable func signInOptions(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let body = try request.decode(as: DeviceKeySignInOptionsRequest.self)
        let issued = try await routes.service.deviceKeys.signInOptions(
            body, caller: routes.caller(request, context), presented: routes.binding(.deviceKeySignIn, request))
        return routes.reply(issued, .deviceKeySignIn)
    }

    @Sendable func signIn(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let bytes = try WireDecoder.body(of: request)
        let body = try WireDecoder.decode(DeviceKeySignInRequest.self, from: bytes)
        let signedIn = try await routes.service.deviceKeys.signIn(
            body, appAttestation: routes.appAttestProof(request, body: bytes), caller: routes.caller(request, context),
            presented: routes.binding(.deviceKeySignIn, request))
        return routes.reply(signedIn, answering: .deviceKeySignIn)
    }
}
