import LatchkeyService
import WebAuthn

/// The signed-in user's passkeys: `GET /credentials`, `PATCH /credentials/{id}` (rename) and
/// `DELETE /credentials/{id}` (``PasskeyService``).
struct CredentialsController: Sendable {
    let routes: ServiceRoutes

    func addRoutes(to group: RouteGroup) {
        group.get(use: list)
        group.patch("{id}", use: rename)
        group.delete("{id}", use: remove)
    }

    @Sendable func list(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let (user, passkeys, deviceKeys) = try await routes.service.passkeys.list(caller: routes.caller(request, context))
        return JSONResponse.make(CredentialListReply(
            rpId: routes.service.relyingParty.id, userHandle: Base64URLBytes(user.handle),
            credentials: passkeys.map { CredentialSummary($0, names: routes.service.names) }, deviceKeys: deviceKeys.map(DeviceKeySummary.init)))
    }

    @Sendable func rename(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let caller = try routes.signedInCaller(request, context)
        let id = try Self.credentialID(context)
        let body = try request.decode(as: RenameCredentialRequest.self)
        let renamed = try await routes.service.passkeys.rename(id, to: body.name, caller: caller)
        return JSONResponse.make(CredentialReply(credential: CredentialSummary(renamed, names: routes.service.names)))
    }

    @Sendable func remove(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        try await routes.service.passkeys.remove(ServiceRoutes.id("id", in: context), caller: routes.caller(request, context))
        return JSONResponse.ok()
    }

    /// The `{id}` path segment as bytes. An ID that is not base64url names no passkey.
    private static func credentialID(_ context: LatchkeyRequestContext) throws -> [UInt8] {
        let id = ServiceRoutes.id("id", in: context)
        guard !id.isEmpty else { throw APIError(.notFound, "no passkey with this id") }
        return id
    }
}
