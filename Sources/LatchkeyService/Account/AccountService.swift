import LatchkeyStore
import Logging
import WebAuthn

/// The signed-in user's session and account: who is signed in, signing out, deleting the account.
package struct AccountService: Sendable {
    let service: RelyingPartyService

    /// The signed-in user and how many passkeys they have.
    package func current(caller: Caller) async throws -> (user: UserRecord, passkeys: Int) {
        let identity = try caller.signedIn()
        return (identity.user, try await service.store.credentials(ofUser: identity.user.handle).count)
    }

    /// Ends every session the caller presented (bearer token and cookie), so the token stops working at once.
    package func signOut(caller: Caller) async throws {
        let identity = try caller.signedIn()
        try await service.sessions.end(
            presentedBy: caller, recording: [service.events.event(.sessionEnded, caller.origin, user: identity.user, detail: "signed out")])
    }

    /// Removes the signed-in user with every passkey, session and pending ceremony of theirs, in one store
    /// transaction. The username is free to register again afterwards.
    package func delete(caller: Caller) async throws {
        let user = try caller.signedIn().user
        // Nil: deleted by a racing request since the session was read; the outcome is the same.
        let event = try service.events.event(.accountDeleted, caller.origin, user: user)
        let removed = try await service.store.deleteUser(handle: user.handle, recording: [event]) ?? []
        for id in removed {
            service.authenticationVerifier.keyCache?.invalidate(credentialID: id)
        }
        caller.logger.notice("account deleted", metadata: [
            "user": .quoted(user.username), "passkeys": "\(removed.count)",
        ])
    }

    /// The signed-in user's own security history, a page at a time.
    package func events(_ page: SecurityEventQuery, caller: Caller) async throws -> [SecurityEvent] {
        var query = page
        query.userHandle = try caller.signedIn().user.handle
        return try await service.store.securityEvents(query)
    }
}
