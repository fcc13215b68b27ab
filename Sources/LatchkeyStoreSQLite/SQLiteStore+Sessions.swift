import Foundation
import LatchkeyStore

/// Sessions, and the purge of everything expired.
extension SQLiteStore {
    private static let insertSession = "INSERT INTO sessions (\(SQLiteRows.sessionColumns()), device_key_id, tenant) VALUES (?, ?, ?, ?, ?, ?, current_tenant())"
    private static let deleteSession = "DELETE FROM sessions WHERE token_hash = ? AND tenant = current_tenant()"
    private static let liveSessionWithUser = """
        SELECT \(SQLiteRows.sessionColumns("s.")), \(SQLiteRows.userColumns("u."))
        FROM sessions s JOIN users u ON u.handle = s.user_handle AND u.tenant = s.tenant
        WHERE s.token_hash = ? AND s.tenant = current_tenant() AND s.expires_at > ?
        """
    /// Column of the user in ``liveSessionWithUser``.
    private static let userOffset: Int32 = 5

    /// Rows the purge deletes per statement; each statement is its own short transaction.
    static let purgeBatchSize: Int64 = 500
    private static let purgeStatements = [
        "DELETE FROM pending_ceremonies WHERE challenge_hash IN (SELECT challenge_hash FROM pending_ceremonies WHERE expires_at <= ? LIMIT ?)",
        "DELETE FROM sessions WHERE token_hash IN (SELECT token_hash FROM sessions WHERE expires_at <= ? LIMIT ?)",
        // Kept a day past expiry, so that a late second use is told the ticket was spent or revoked.
        "DELETE FROM enrollment_tickets WHERE rowid IN (SELECT rowid FROM enrollment_tickets WHERE expires_at <= ? - 86400 LIMIT ?)",
        // A grant's expiry is past every token's, and a day past its revocation.
        "DELETE FROM oauth_grants WHERE id IN (SELECT id FROM oauth_grants WHERE expires_at <= ? LIMIT ?)",
        // Kept a day past expiry, so that a late poll is told the device code expired.
        """
        DELETE FROM oauth_device_authorizations
        WHERE grant_id IN (SELECT grant_id FROM oauth_device_authorizations WHERE expires_at <= ? - 86400 LIMIT ?)
        """,
    ]

    public func session(tokenHash: [UInt8], now: Date) async throws -> SessionWithUser? {
        try await withStatement(Self.liveSessionWithUser) { row in
            try row.bind(tokenHash, now)
            guard try row.step() else { return nil }
            return SessionWithUser(session: SQLiteRows.session(row), user: SQLiteRows.user(row, at: Self.userOffset))
        }
    }

    public func deleteSessions(tokenHashes: [[UInt8]], recording events: [SecurityEvent]) async throws {
        guard !tokenHashes.isEmpty else { return }
        try await withTransaction { database in
            if try Self.deleteSessions(tokenHashes, from: database) > 0 { try insert(events, into: database) }
        }
    }

    /// Deletes in batches of ``purgeBatchSize`` rows, letting other calls to the store run between
    /// batches, so neither the database nor the store is held for long.
    public func purgeExpired(now: Date) async throws {
        try await policy.call(#function) {
            for sql in Self.purgeStatements {
                while true {
                    let deleted = try lockedDatabase { database in
                        try database.withStatement(sql) { statement in
                            try statement.bind(now, Self.purgeBatchSize)
                            try statement.step()
                            return database.changes
                        }
                    }
                    guard deleted >= Self.purgeBatchSize else { break }
                    await Task.yield()
                }
            }
        }
    }

    // MARK: Writes inside a transaction

    /// Inserts `session`; `deviceKeyID` is the device key it signed in with, whose removal ends it.
    static func insert(_ session: SessionRecord, signedInWith deviceKeyID: [UInt8]? = nil, into database: SQLiteConnection) throws {
        try database.withStatement(insertSession) { statement in
            try statement.bind(
                session.tokenHash, session.userHandle, session.createdAt, session.expiresAt, session.methods.joined(separator: " "), deviceKeyID)
            do {
                try statement.step()
            } catch let error as SQLiteConstraintError where error.code == SQLiteConstraintError.foreignKey {
                throw StoreError(.userNotFound, "the user this session was for does not exist")
            } catch is SQLiteConstraintError {
                throw StoreError(.database, "a session with this token exists already")
            }
        }
    }

    /// Returns how many sessions it ended.
    @discardableResult
    static func deleteSessions(_ tokenHashes: [[UInt8]], from database: SQLiteConnection) throws -> Int {
        var deleted = 0
        for tokenHash in tokenHashes {
            try database.withStatement(deleteSession) { statement in
                try statement.bind(tokenHash)
                try statement.step()
            }
            deleted += database.changes
        }
        return deleted
    }
}
