import Hummingbird
import LatchkeyService
import LatchkeyStore
import Logging
import WebAuthn

/// The signed-in user's passkeys: `GET /credentials`, `PATCH /credentials/{id}` (rename) and
/// `DELETE /credentials/{id}`. A passkey of another user answers 404 exactly as an unknown one does,
/// so nobody learns that an ID exists; the last passkey cannot be removed (409), since its owner
/// could never sign in again.
struct CredentialsController: Sendable {
    let services: LatchkeyServices
    let names: AuthenticatorNames

    func addRoutes(to group: RouterGroup<LatchkeyRequestContext>) {
        group.get(use: list)
        group.patch("{id}", use: rename)
        group.delete("{id}", use: remove)
    }

    @Sendable func list(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let user = try context.requireIdentity().user
        let credentials = try await services.store.credentials(ofUser: user.handle)
        let deviceKeys = try await services.store.deviceKeys(ofUser: user.handle)
        return JSONResponse.make(CredentialListReply(
            rpId: services.relyingParty.id, userHandle: Base64URLBytes(user.handle),
            credentials: credentials.map { CredentialSummary($0, names: names) }, deviceKeys: deviceKeys.map(DeviceKeySummary.init)))
    }

    @Sendable func rename(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let user = try context.requireIdentity().user
        let id = try Self.credentialID(context)
        let body = try await request.decode(as: RenameCredentialRequest.self, context: context)
        let name = try body.name.map { try UserNames.displayName($0, member: "name") }
        guard let current = try await services.store.credential(id: id), current.userHandle == user.handle else { throw Self.notFound }
        let event = try services.events.event(
            .passkeyRenamed, context.eventOrigin(request), user: user, credential: current,
            detail: SecurityEventRecorder.renameDetail(name))
        guard let renamed = try await services.store.renameCredential(id: id, ownedBy: user.handle, name: name, recording: [event]) else {
            throw Self.notFound
        }
        context.logger.info("passkey renamed", metadata: [
            "user": .quoted(user.username), "credential": "\(LatchkeyServices.logID(id))",
        ])
        return JSONResponse.make(CredentialReply(credential: CredentialSummary(renamed, names: names)))
    }

    @Sendable func remove(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let user = try context.requireIdentity().user
        let id = try Self.credentialID(context)
        guard let current = try await services.store.credential(id: id), current.userHandle == user.handle else { throw Self.notFound }
        let event = try services.events.event(.passkeyRemoved, context.eventOrigin(request), user: user, credential: current)
        switch try await services.store.deleteCredential(id: id, ownedBy: user.handle, recording: [event]) {
        case .deleted:
            services.authenticationVerifier.keyCache?.invalidate(credentialID: id)
            context.logger.info("passkey removed", metadata: [
                "user": .quoted(user.username), "credential": "\(LatchkeyServices.logID(id))",
            ])
            return JSONResponse.ok()
        case .notFound:
            throw Self.notFound
        case .lastCredential:
            throw APIError(
                .conflict,
                "this is your only passkey: without it you could never sign in again; add another passkey first, or delete the account")
        }
    }

    private static let notFound = APIError(.notFound, "no passkey with this id")

    /// The `{id}` path segment as bytes. An ID that is not base64url names no passkey: 404.
    private static func credentialID(_ context: LatchkeyRequestContext) throws -> [UInt8] {
        guard let text = context.parameters.get("id"), let id = Base64URL.decode(text), !id.isEmpty else {
            throw notFound
        }
        return id
    }
}
