import Foundation
import LatchkeyStore
import PostgresNIO

/// What a backend controls: users made ahead of their passkeys, admin keys, enrollment tickets
/// and token signing keys. Each call is one statement, so every instance sees its effect at once.
extension PostgresStore {
    private static let adminKeyColumns = "name, key_hash, created_at, last_used_at"
    private static let ticketColumns = "hash, user_handle, created_at, expires_at, used_at, revoked_at"

    public func createUser(_ user: UserRecord, recording events: [SecurityEvent]) async throws {
        let outbox = webhooks, tenant = tenant
        try await Self.refusingTakenNames(of: user) {
            try await transaction { connection in
                try await Self.execute(PostgresRows.insert(user, of: tenant), on: connection)
                try await Self.insert(events, of: tenant, outbox: outbox, on: connection)
            }
        }
    }

    public func updateUser(_ user: UserRecord, from previous: UserRecord, recording events: [SecurityEvent]) async throws -> Bool {
        try await Self.refusingTakenNames(of: user) {
            try await count("""
                UPDATE users SET username = \(user.username.utf8Bytea), display_name = \(user.displayName.utf8Bytea),
                    external_id = \(user.externalId?.utf8Bytea), disabled = \(user.disabled)
                WHERE handle = \(previous.handle.bytea) AND tenant = \(tenant) AND username = \(previous.username.utf8Bytea)
                    AND display_name = \(previous.displayName.utf8Bytea)
                    AND external_id IS NOT DISTINCT FROM \(previous.externalId?.utf8Bytea) AND disabled = \(previous.disabled)
                RETURNING 1
                """, recording: events) > 0
        }
    }

    /// Runs `body`, which writes `user`; a taken username or external ID is named in the error.
    private static func refusingTakenNames<T>(of user: UserRecord, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as StoreError where error.code == .usernameTaken {
            throw StoreError(.usernameTaken, "username \"\(user.username)\" is already registered")
        } catch let error as StoreError where error.code == .externalIdTaken {
            throw StoreError(.externalIdTaken, "externalId \"\(user.externalId ?? "")\" belongs to another user")
        }
    }

    public func user(externalId: String) async throws -> UserRecord? {
        try await firstRow("""
            SELECT \(unescaped: PostgresRows.userColumns()) FROM users
            WHERE external_id = \(externalId.utf8Bytea) AND tenant = \(tenant)
            """) {
            try PostgresRows.user(&$0)
        }
    }

    public func users(after username: String?, limit: Int) async throws -> [UserOverview] {
        try await rows("""
            SELECT \(unescaped: PostgresRows.userColumns("u.")), count(c.id),
                GREATEST(max(c.last_used_at), (
                    SELECT max(d.last_used_at) FROM device_keys d WHERE d.user_handle = u.handle AND d.tenant = u.tenant))
            FROM (
                SELECT \(unescaped: PostgresRows.userColumns()), tenant FROM users
                WHERE tenant = \(tenant) AND username > \((username ?? "").utf8Bytea) ORDER BY username LIMIT \(Int64(limit))
            ) AS u
            LEFT JOIN credentials c ON c.user_handle = u.handle AND c.tenant = u.tenant
            GROUP BY u.handle, u.username, u.display_name, u.created_at, u.external_id, u.disabled, u.tenant ORDER BY u.username
            """) { row in
            UserOverview(user: try PostgresRows.user(&row), passkeys: Int(try row.next(Int64.self)), lastSignInAt: try row.next(Date?.self))
        }
    }

    public func sessions(ofUser handle: [UInt8], now: Date, limit: Int) async throws -> [SessionOverview] {
        try await rows("""
            SELECT created_at, expires_at, device_key_id IS NOT NULL FROM sessions
            WHERE tenant = \(tenant) AND user_handle = \(handle.bytea) AND expires_at > \(now) ORDER BY created_at DESC LIMIT \(Int64(limit))
            """) { row in
            SessionOverview(createdAt: try row.next(Date.self), expiresAt: try row.next(Date.self), deviceKey: try row.next(Bool.self))
        }
    }

    public func deleteSessions(ofUser handle: [UInt8], recording events: [SecurityEvent]) async throws -> Int {
        try await count("DELETE FROM sessions WHERE user_handle = \(handle.bytea) AND tenant = \(tenant) RETURNING 1", recording: events)
    }

    public func deleteCredentialEvenIfLast(id: [UInt8], ownedBy owner: [UInt8], recording events: [SecurityEvent]) async throws
        -> Bool
    {
        // Timed as `deleteCredential`, the name its operation has always had in the metrics.
        try await count(
            "DELETE FROM credentials WHERE id = \(id.bytea) AND tenant = \(tenant) AND user_handle = \(owner.bytea) RETURNING 1",
            recording: events,
            function: "deleteCredential") > 0
    }

    // MARK: Admin keys

    public func saveAdminKey(_ key: AdminKeyRecord, recording events: [SecurityEvent]) async throws {
        _ = try await count("""
            INSERT INTO admin_keys (\(unescaped: Self.adminKeyColumns), tenant)
            VALUES (\(key.name), \(key.keyHash.bytea), \(key.createdAt), \(key.lastUsedAt), \(tenant)) RETURNING 1
            """, recording: events)
    }

    public func adminKeys() async throws -> [AdminKeyRecord] {
        try await rows("""
            SELECT \(unescaped: Self.adminKeyColumns) FROM admin_keys WHERE tenant = \(tenant) ORDER BY created_at, name
            """) {
            try Self.adminKey(&$0)
        }
    }

    public func deleteAdminKey(named name: String, recording events: [SecurityEvent]) async throws -> Bool {
        try await count("DELETE FROM admin_keys WHERE name = \(name) AND tenant = \(tenant) RETURNING 1", recording: events) > 0
    }

    public func useAdminKey(hash: [UInt8], now: Date) async throws -> AdminKeyRecord? {
        try await firstRow("""
            UPDATE admin_keys SET last_used_at = \(now) WHERE key_hash = \(hash.bytea) AND tenant = \(tenant)
            RETURNING \(unescaped: Self.adminKeyColumns)
            """) { try Self.adminKey(&$0) }
    }

    // MARK: Enrollment tickets

    public func saveEnrollmentTicket(_ ticket: EnrollmentTicketRecord, recording events: [SecurityEvent]) async throws {
        _ = try await count("""
            INSERT INTO enrollment_tickets (\(unescaped: Self.ticketColumns), tenant) VALUES (
                \(ticket.hash.bytea), \(ticket.userHandle.bytea), \(ticket.createdAt), \(ticket.expiresAt),
                \(ticket.usedAt), \(ticket.revokedAt), \(tenant)
            ) RETURNING 1
            """, recording: events)
    }

    public func enrollmentTicket(hash: [UInt8]) async throws -> EnrollmentTicketRecord? {
        try await firstRow("""
            SELECT \(unescaped: Self.ticketColumns) FROM enrollment_tickets
            WHERE hash = \(hash.bytea) AND tenant = \(tenant)
            """) { row in
            EnrollmentTicketRecord(
                hash: try row.bytes(), userHandle: try row.bytes(), createdAt: try row.next(), expiresAt: try row.next(),
                usedAt: try row.next(Date?.self), revokedAt: try row.next(Date?.self))
        }
    }

    public func revokeEnrollmentTickets(
        ofUser handle: [UInt8], now: Date, recording events: @escaping @Sendable (_ revoked: Int) -> [SecurityEvent]
    ) async throws -> Int {
        try await count("""
            UPDATE enrollment_tickets SET revoked_at = \(now)
            WHERE user_handle = \(handle.bytea) AND tenant = \(tenant) AND used_at IS NULL AND revoked_at IS NULL AND expires_at > \(now) RETURNING 1
            """, recording: events)
    }

    // MARK: Signing keys

    public func signingKeys() async throws -> [SigningKeyRecord] {
        try await rows("""
            SELECT generation, key_id, private_key, created_at, signs_from FROM signing_keys WHERE tenant = \(tenant) ORDER BY generation
            """) { row in
            SigningKeyRecord(
                generation: Int(try row.next(Int64.self)), keyID: try row.next(String.self), privateKey: try row.bytes(),
                createdAt: try row.next(Date.self), signsFrom: try row.next(Date.self))
        }
    }

    public func addSigningKey(_ key: SigningKeyRecord, recording events: [SecurityEvent]) async throws -> Bool {
        try await count("""
            INSERT INTO signing_keys (generation, key_id, private_key, created_at, signs_from, tenant)
            VALUES (\(Int64(key.generation)), \(key.keyID), \(key.privateKey.bytea), \(key.createdAt), \(key.signsFrom), \(tenant))
            ON CONFLICT (tenant, generation) DO NOTHING RETURNING 1
            """, recording: events) > 0
    }

    // MARK: Helpers

    private static func adminKey(_ row: inout ColumnReader) throws -> AdminKeyRecord {
        AdminKeyRecord(
            name: try row.next(String.self), keyHash: try row.bytes(), createdAt: try row.next(Date.self),
            lastUsedAt: try row.next(Date?.self))
    }
}
