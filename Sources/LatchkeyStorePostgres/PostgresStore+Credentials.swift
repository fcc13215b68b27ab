import Foundation
import LatchkeyStore
import PostgresNIO
import WebAuthn

/// Users and credentials: reads, registration and sign-in bookkeeping.
extension PostgresStore {
    public func user(named username: String) async throws -> UserRecord? {
        try await firstRow("SELECT \(unescaped: PostgresRows.userColumns()) FROM users WHERE username = \(username.utf8Bytea) AND tenant = \(tenant)") {
            try PostgresRows.user(&$0)
        }
    }

    public func user(handle: [UInt8]) async throws -> UserRecord? {
        try await firstRow("SELECT \(unescaped: PostgresRows.userColumns()) FROM users WHERE handle = \(handle.bytea) AND tenant = \(tenant)") {
            try PostgresRows.user(&$0)
        }
    }

    public func credentials(ofUser handle: [UInt8]) async throws -> [CredentialRecord] {
        try await rows("""
            SELECT \(unescaped: PostgresRows.credentialColumns()) FROM credentials
            WHERE user_handle = \(handle.bytea) AND tenant = \(tenant) ORDER BY created_at, registered
            """) { try PostgresRows.credential(&$0) }
    }

    public func userWithCredentials(named username: String) async throws -> (user: UserRecord, credentials: [CredentialRecord])? {
        let rows = try await rows(SignInStatements.UserWithCredentials(username: username, tenant: tenant))
        guard let user = rows.first?.user else { return nil }
        return (user, rows.compactMap(\.credential))
    }

    public func credential(id: [UInt8]) async throws -> CredentialRecord? {
        try await firstRow("SELECT \(unescaped: PostgresRows.credentialColumns()) FROM credentials WHERE id = \(id.bytea) AND tenant = \(tenant)") {
            try PostgresRows.credential(&$0)
        }
    }

    public func passkeyShapes() async throws -> PasskeyShapes {
        let tenant = tenant
        return try await withConnection { connection in
            let sample = PasskeyShapes.sampledUsers
            let passkeys = try await Self.rows("""
                SELECT octet_length(c.id)::bigint, c.transports, count(*)
                FROM (SELECT handle, tenant FROM users WHERE tenant = \(tenant) ORDER BY username LIMIT \(Int64(sample))) AS u
                JOIN credentials c ON c.user_handle = u.handle AND c.tenant = u.tenant GROUP BY 1, 2
                """, on: connection) {
                row in
                let idLength = Int(try row.next(Int64.self))
                let transports = try row.next([String].self).compactMap(AuthenticatorTransport.init(rawValue:))
                return (PasskeyShapes.Shape(idLength: idLength, transports: transports), Int(try row.next(Int64.self)))
            }
            let users = try await Self.rows("""
                SELECT n, count(*) FROM (
                    SELECT count(c.id) AS n
                    FROM (SELECT handle, tenant FROM users WHERE tenant = \(tenant) ORDER BY username LIMIT \(Int64(sample))) AS u
                    LEFT JOIN credentials c ON c.user_handle = u.handle AND c.tenant = u.tenant GROUP BY u.handle
                ) AS counts
                WHERE n > 0 GROUP BY n
                """, on: connection) { row in (Int(try row.next(Int64.self)), Int(try row.next(Int64.self))) }
            var shapes = PasskeyShapes(usersByPasskeyCount: Dictionary(users, uniquingKeysWith: +))
            for (shape, count) in passkeys { shapes.passkeys[shape, default: 0] += count }
            return shapes
        }
    }

    public func register(_ registration: NewRegistration) async throws {
        let credential = registration.credential
        if let newUser = registration.newUser, newUser.handle != credential.userHandle {
            throw StoreError(.userNotFound, "the new user is not the owner of the credential being registered")
        }
        if let session = registration.session, session.userHandle != credential.userHandle {
            throw StoreError(.userNotFound, "the session is for another user than the credential's owner")
        }
        let outbox = webhooks, tenant = tenant
        do {
            try await transaction { connection in
                if let challengeHash = registration.challengeHash {
                    let consumed = try await Self.rows("""
                        DELETE FROM pending_ceremonies WHERE challenge_hash = \(challengeHash.bytea) AND tenant = \(tenant) RETURNING 1
                        """, on: connection) { _ in true }
                    guard !consumed.isEmpty else { throw StoreError(.challengeSpent, "the challenge was answered already") }
                }
                if let ticket = registration.spendingTicket {
                    try await Self.spend(ticket, of: credential.userHandle, tenant: tenant, on: connection)
                }
                if let user = registration.newUser {
                    try await Self.execute(PostgresRows.insert(user, of: tenant), on: connection)
                    if let contact = registration.contact {
                        try await Self.execute("""
                            INSERT INTO user_contacts (tenant, user_handle, kind, value)
                            VALUES (\(tenant), \(user.handle.bytea), \(contact.kind.rawValue), \(contact.value.utf8Bytea))
                            """, on: connection)
                    }
                }
                try await Self.execute(PostgresRows.insert(credential, of: tenant), on: connection)
                if let session = registration.session {
                    try await Self.insert(session, of: tenant, on: connection)
                }
                try await Self.deleteSessions(registration.endingSessions, of: tenant, on: connection)
                try await Self.insert(registration.events, of: tenant, outbox: outbox, on: connection)
            }
        } catch let error as StoreError where error.code == .usernameTaken {
            throw StoreError(.usernameTaken, "username \"\(registration.newUser?.username ?? "")\" is already registered")
        }
    }

    /// One statement (``SignInStatements/RecordSignIn``), so it is atomic without a transaction:
    /// the compare-and-set of the counter (which also checks that the session is for the
    /// credential's owner), the new session and the end of the replaced ones happen only when the
    /// counter is still `previousSignCount`. Of two instances racing with the same counter, the
    /// second `UPDATE` waits for the first, re-reads the row, finds the counter moved and changes
    /// nothing. The statement also reads the credential's owner as it began, to say why nothing
    /// was written.
    public func recordSignIn(_ signIn: CompletedSignIn) async throws -> SignInRecording {
        let outbox = webhooks, tenant = tenant
        // One event (what a sign-in makes) is written by the statement itself, with its statistics; more share a transaction.
        let single = SignInStatements.RecordSignIn(signIn: signIn, event: signIn.events.first, outbox: outbox, tenant: tenant)
        let recorded = signIn.events.count <= 1 && single.countsItsEvent
            ? try await rows(single).first
            : try await transaction { connection in
                var outcome: SignInStatements.RecordSignIn.Row?
                let statement = SignInStatements.RecordSignIn(signIn: signIn, event: nil, outbox: outbox, tenant: tenant)
                for try await row in try await Self.send(statement, on: connection) { outcome = row }
                if let outcome, outcome.recorded { try await Self.insert(signIn.events, of: tenant, outbox: outbox, on: connection) }
                return outcome
            }
        guard let outcome = recorded else {
            throw StoreError(.database, "the sign-in statement returned no row")
        }
        guard outcome.consumed else { return .challengeSpent }
        if outcome.recorded { return .recorded }
        guard let owner = outcome.owner else { return .credentialRemoved }
        guard owner == signIn.session.userHandle else {
            throw StoreError(.userNotFound, "the session is for another user than the credential's owner")
        }
        return .counterMoved
    }

    public func recordSignCountRegression(credentialID: [UInt8], recording events: [SecurityEvent]) async throws {
        _ = try await count("""
            UPDATE credentials SET sign_count_regressions = sign_count_regressions + 1 WHERE id = \(credentialID.bytea) AND tenant = \(tenant)
            RETURNING 1
            """, recording: events)
    }

    /// Marks an enrollment ticket of `userHandle` (of `tenant`) used; ``StoreError/Code/ticketNotUsable`` when it
    /// is another user's, used, revoked, expired or gone.
    static func spend(
        _ ticket: (hash: [UInt8], at: Date), of userHandle: [UInt8], tenant: TenantID, on connection: PostgresConnection
    ) async throws {
        let spent = try await rows("""
            UPDATE enrollment_tickets SET used_at = \(ticket.at)
            WHERE hash = \(ticket.hash.bytea) AND user_handle = \(userHandle.bytea) AND tenant = \(tenant)
            AND used_at IS NULL AND revoked_at IS NULL AND expires_at > \(ticket.at)
            RETURNING 1
            """, on: connection) { _ in true }
        guard !spent.isEmpty else { throw StoreError(.ticketNotUsable, "the enrollment ticket is no longer usable for this user") }
    }
}
