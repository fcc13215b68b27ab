import LatchkeyStore
import Logging
import WebAuthn

/// The signed-in user's own passkeys and device keys: listed, renamed, removed. A passkey of another user is
/// not found exactly as an unknown one is, so nobody learns that an ID exists; the last passkey cannot be
/// removed, since its owner could never sign in again.
package struct PasskeyService: Sendable {
    let service: RelyingPartyService

    /// The signed-in user, their passkeys and their device keys.
    package func list(caller: Caller) async throws -> (user: UserRecord, passkeys: [CredentialRecord], deviceKeys: [DeviceKeyRecord]) {
        let user = try caller.signedIn().user
        let credentials = try await service.store.credentials(ofUser: user.handle)
        let deviceKeys = try await service.store.deviceKeys(ofUser: user.handle)
        return (user, credentials, deviceKeys)
    }

    /// Names one of the signed-in user's passkeys; nil removes the name its owner gave.
    package func rename(_ id: [UInt8], to name: String?, caller: Caller) async throws -> CredentialRecord {
        let user = try caller.signedIn().user
        guard !id.isEmpty else { throw Self.notFound }
        let name = try name.map { try UserNames.displayName($0, member: "name") }
        guard let current = try await service.store.credential(id: id), current.userHandle == user.handle else { throw Self.notFound }
        let event = try service.events.event(
            .passkeyRenamed, caller.origin, user: user, credential: current, detail: SecurityEventRecorder.renameDetail(name))
        guard let renamed = try await service.store.renameCredential(id: id, ownedBy: user.handle, name: name, recording: [event]) else {
            throw Self.notFound
        }
        caller.logger.info("passkey renamed", metadata: [
            "user": .quoted(user.username), "credential": "\(RelyingPartyService.logID(id))",
        ])
        return renamed
    }

    /// Removes one of the signed-in user's passkeys, unless it is their last.
    package func remove(_ id: [UInt8], caller: Caller) async throws {
        let user = try caller.signedIn().user
        guard !id.isEmpty, let current = try await service.store.credential(id: id), current.userHandle == user.handle else {
            throw Self.notFound
        }
        let event = try service.events.event(.passkeyRemoved, caller.origin, user: user, credential: current)
        switch try await service.store.deleteCredential(id: id, ownedBy: user.handle, recording: [event]) {
        case .deleted:
            service.authenticationVerifier.keyCache?.invalidate(credentialID: id)
            caller.logger.info("passkey removed", metadata: [
                "user": .quoted(user.username), "credential": "\(RelyingPartyService.logID(id))",
            ])
        case .notFound:
            throw Self.notFound
        case .lastCredential:
            throw ServiceError(
                .conflict,
                "this is your only passkey: without it you could never sign in again; add another passkey first, or delete the account")
        }
    }

    private static let notFound = ServiceError(.notFound, "no passkey with this id")
}
