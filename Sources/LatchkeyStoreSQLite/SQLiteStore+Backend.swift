import Foundation
import LatchkeyStore

/// What a backend controls: users made ahead of their passkeys, admin keys, enrollment tickets
/// and token signing keys.
extension SQLiteStore {
    private static let userByExternalID = "SELECT \(SQLiteRows.userColumns()) FROM users WHERE external_id = ? AND tenant = current_tenant()"
    private static let updateUser = """
        UPDATE users SET username = ?, display_name = ?, external_id = ?, disabled = ?
        WHERE handle = ? AND tenant = current_tenant() AND username = ? AND display_name = ? AND external_id IS ? AND disabled = ?
        """
    /// A page of users by username (the page picked through the tenant's username index first, then its passkeys
    /// counted), after `?1` (the empty string for the first: no username is empty).
    private static let usersPage = """
        SELECT \(SQLiteRows.userColumns("u.")), count(c.id), max(c.last_used_at),
            (SELECT max(d.last_used_at) FROM device_keys d WHERE d.user_handle = u.handle AND d.tenant = u.tenant)
        FROM (SELECT \(SQLiteRows.userColumns()), tenant FROM users WHERE tenant = current_tenant() AND username > ?1 ORDER BY username LIMIT ?2) u
        LEFT JOIN credentials c ON c.user_handle = u.handle AND c.tenant = u.tenant
        GROUP BY u.handle ORDER BY u.username
        """
    private static let deleteSessionsOfUser = "DELETE FROM sessions WHERE user_handle = ? AND tenant = current_tenant()"
    private static let deleteOwnedCredential = "DELETE FROM credentials WHERE id = ? AND user_handle = ? AND tenant = current_tenant()"
    private static let insertAdminKey = "INSERT INTO admin_keys (name, key_hash, created_at, last_used_at, tenant) VALUES (?, ?, ?, ?, current_tenant())"
    private static let adminKeyColumns = "name, key_hash, created_at, last_used_at"
    private static let allAdminKeys = "SELECT \(adminKeyColumns) FROM admin_keys WHERE tenant = current_tenant() ORDER BY created_at, rowid"
    private static let deleteAdminKey = "DELETE FROM admin_keys WHERE name = ? AND tenant = current_tenant()"
    private static let useAdminKey = "UPDATE admin_keys SET last_used_at = ? WHERE key_hash = ? AND tenant = current_tenant() RETURNING \(adminKeyColumns)"
    private static let ticketColumns = "hash, user_handle, created_at, expires_at, used_at, revoked_at"
    private static let insertTicket = "INSERT INTO enrollment_tickets (\(ticketColumns), tenant) VALUES (?, ?, ?, ?, ?, ?, current_tenant())"
    private static let ticketByHash = "SELECT \(ticketColumns) FROM enrollment_tickets WHERE hash = ? AND tenant = current_tenant()"
    private static let revokeTickets = """
        UPDATE enrollment_tickets SET revoked_at = ?1
        WHERE user_handle = ?2 AND tenant = current_tenant() AND used_at IS NULL AND revoked_at IS NULL AND expires_at > ?1
        """
    private static let signingKeyColumns = "generation, key_id, private_key, created_at, signs_from"
    private static let allSigningKeys = "SELECT \(signingKeyColumns) FROM signing_keys WHERE tenant = current_tenant() ORDER BY generation"
    private static let insertSigningKey = """
        INSERT INTO signing_keys (\(signingKeyColumns), tenant) VALUES (?, ?, ?, ?, ?, current_tenant())
        ON CONFLICT (tenant, generation) DO NOTHING
        """

    public func createUser(_ user: UserRecord, recording events: [SecurityEvent]) async throws {
        try await withTransaction { database in
            try Self.insert(user, into: database)
            try insert(events, into: database)
        }
    }

    public func updateUser(_ user: UserRecord, from previous: UserRecord, recording events: [SecurityEvent]) async throws -> Bool {
        try await withTransaction { database in
            try Self.refusingTakenNames(of: user) {
                try change(Self.updateUser, in: database, recording: { _ in events }) {
                    try $0.bind(
                        user.username, user.displayName, user.externalId, user.disabled,
                        previous.handle, previous.username, previous.displayName, previous.externalId, previous.disabled)
                } > 0
            }
        }
    }

    public func users(after username: String?, limit: Int) async throws -> [UserOverview] {
        try await withStatement(Self.usersPage) { row in
            try row.bind(username ?? "", Int64(limit))
            var users: [UserOverview] = []
            while try row.step() {
                users.append(UserOverview(
                    user: SQLiteRows.user(row), passkeys: Int(row.int64(6)),
                    lastSignInAt: [row.optionalDate(7), row.optionalDate(8)].compactMap { $0 }.max()))
            }
            return users
        }
    }

    public func user(externalId: String) async throws -> UserRecord? {
        try await withStatement(Self.userByExternalID) { row in
            try row.bind(externalId)
            return try row.step() ? SQLiteRows.user(row) : nil
        }
    }

    public func sessions(ofUser handle: [UInt8], now: Date, limit: Int) async throws -> [SessionOverview] {
        try await withStatement("""
            SELECT created_at, expires_at, device_key_id IS NOT NULL FROM sessions
            WHERE tenant = current_tenant() AND user_handle = ?1 AND expires_at > ?2 ORDER BY created_at DESC LIMIT ?3
            """) { row in
            try row.bind(handle, now, Int64(limit))
            var sessions: [SessionOverview] = []
            while try row.step() { sessions.append(SessionOverview(createdAt: row.date(0), expiresAt: row.date(1), deviceKey: row.bool(2))) }
            return sessions
        }
    }

    public func deleteSessions(ofUser handle: [UInt8], recording events: [SecurityEvent]) async throws -> Int {
        try await changing(Self.deleteSessionsOfUser, recording: events) { try $0.bind(handle) }
    }

    public func deleteCredentialEvenIfLast(id: [UInt8], ownedBy owner: [UInt8], recording events: [SecurityEvent]) async throws -> Bool {
        // Timed as `deleteCredential`, the name its operation has always had in the metrics.
        try await changing(Self.deleteOwnedCredential, recording: events, function: "deleteCredential") { try $0.bind(id, owner) } > 0
    }

    // MARK: Admin keys

    public func saveAdminKey(_ key: AdminKeyRecord, recording events: [SecurityEvent]) async throws {
        try await withTransaction { database in
            try database.withStatement(Self.insertAdminKey) { statement in
                try statement.bind(key.name, key.keyHash, key.createdAt, key.lastUsedAt)
                do {
                    try statement.step()
                } catch is SQLiteConstraintError {
                    throw StoreError(.nameTaken, "an admin key named \"\(key.name)\" exists already")
                }
            }
            try insert(events, into: database)
        }
    }

    public func adminKeys() async throws -> [AdminKeyRecord] {
        try await withStatement(Self.allAdminKeys) { row in
            var keys: [AdminKeyRecord] = []
            while try row.step() { keys.append(Self.adminKey(row)) }
            return keys
        }
    }

    public func deleteAdminKey(named name: String, recording events: [SecurityEvent]) async throws -> Bool {
        try await changing(Self.deleteAdminKey, recording: events) { try $0.bind(name) } > 0
    }

    public func useAdminKey(hash: [UInt8], now: Date) async throws -> AdminKeyRecord? {
        try await withStatement(Self.useAdminKey) { row in
            try row.bind(now, hash)
            guard try row.step() else { return nil }
            let key = Self.adminKey(row)
            try row.finish()
            return key
        }
    }

    // MARK: Enrollment tickets

    public func saveEnrollmentTicket(_ ticket: EnrollmentTicketRecord, recording events: [SecurityEvent]) async throws {
        try await withTransaction { database in
            try database.withStatement(Self.insertTicket) { statement in
                try statement.bind(ticket.hash, ticket.userHandle, ticket.createdAt, ticket.expiresAt, ticket.usedAt, ticket.revokedAt)
                do {
                    try statement.step()
                } catch let error as SQLiteConstraintError where error.code == SQLiteConstraintError.foreignKey {
                    throw StoreError(.userNotFound, "the user this ticket was for does not exist")
                } catch is SQLiteConstraintError {
                    throw StoreError(.database, "an enrollment ticket with this hash exists already")
                }
            }
            try insert(events, into: database)
        }
    }

    public func enrollmentTicket(hash: [UInt8]) async throws -> EnrollmentTicketRecord? {
        try await withStatement(Self.ticketByHash) { row in
            try row.bind(hash)
            guard try row.step() else { return nil }
            return EnrollmentTicketRecord(
                hash: row.blob(0), userHandle: row.blob(1), createdAt: row.date(2), expiresAt: row.date(3),
                usedAt: row.optionalDate(4), revokedAt: row.optionalDate(5))
        }
    }

    public func revokeEnrollmentTickets(
        ofUser handle: [UInt8], now: Date, recording events: @escaping @Sendable (_ revoked: Int) -> [SecurityEvent]
    ) async throws -> Int {
        try await changing(Self.revokeTickets, recording: events) { try $0.bind(now, handle) }
    }

    // MARK: Signing keys

    public func signingKeys() async throws -> [SigningKeyRecord] {
        try await withStatement(Self.allSigningKeys) { row in
            var keys: [SigningKeyRecord] = []
            while try row.step() {
                keys.append(SigningKeyRecord(
                    generation: Int(row.int64(0)), keyID: row.text(1), privateKey: row.blob(2), createdAt: row.date(3),
                    signsFrom: row.date(4)))
            }
            return keys
        }
    }

    public func addSigningKey(_ key: SigningKeyRecord, recording events: [SecurityEvent]) async throws -> Bool {
        try await changing(Self.insertSigningKey, recording: events) {
            try $0.bind(Int64(key.generation), key.keyID, key.privateKey, key.createdAt, key.signsFrom)
        } > 0
    }

    // MARK: Helpers

    /// Runs one statement that returns no rows, and writes `events` in its transaction when it
    /// changed a row; returns how many rows it changed.
    func changing(
        _ sql: String, recording events: [SecurityEvent] = [], function: String = #function, bind: (SQLiteStatement) throws -> Void
    ) async throws -> Int {
        try await changing(sql, recording: { _ in events }, function: function, bind: bind)
    }

    /// ``changing(_:recording:function:bind:)`` with the events made of how many rows the statement changed.
    func changing(
        _ sql: String, recording events: (_ changed: Int) -> [SecurityEvent], function: String = #function,
        bind: (SQLiteStatement) throws -> Void
    ) async throws -> Int {
        try await withTransaction(function) { database in try change(sql, in: database, recording: events, bind: bind) }
    }

    /// The statement of ``changing(_:recording:function:bind:)`` on `database`, inside its transaction.
    private func change(
        _ sql: String, in database: SQLiteConnection, recording events: (_ changed: Int) -> [SecurityEvent],
        bind: (SQLiteStatement) throws -> Void
    ) throws -> Int {
        let changed = try database.withStatement(sql) { statement in
            try bind(statement)
            try statement.step()
            return database.changes
        }
        if changed > 0 { try insert(events(changed), into: database) }
        return changed
    }

    private static func adminKey(_ row: SQLiteStatement) -> AdminKeyRecord {
        AdminKeyRecord(name: row.text(0), keyHash: row.blob(1), createdAt: row.date(2), lastUsedAt: row.optionalDate(3))
    }
}
