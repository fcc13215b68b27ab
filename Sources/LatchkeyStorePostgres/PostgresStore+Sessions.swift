import Foundation
import LatchkeyStore
import PostgresNIO

/// Sessions, and the purge of everything expired.
extension PostgresStore {
    public func session(tokenHash: [UInt8], now: Date) async throws -> SessionWithUser? {
        try await rows(SignInStatements.LiveSession(tokenHash: tokenHash, now: now, tenant: tenant)).first
    }

    public func deleteSessions(tokenHashes: [[UInt8]], recording events: [SecurityEvent]) async throws {
        guard !tokenHashes.isEmpty else { return }
        guard !events.isEmpty else {
            let tenant = tenant
            try await withConnection { connection in try await Self.deleteSessions(tokenHashes, of: tenant, on: connection) }
            return
        }
        _ = try await count("""
            DELETE FROM sessions WHERE token_hash = ANY(\(tokenHashes.map(\.bytea))::bytea[]) AND tenant = \(tenant) RETURNING 1
            """, recording: events)
    }

    /// Rows the purge deletes per statement; each statement is its own short transaction.
    static let purgeBatchSize = 500

    /// Deletes in batches of ``purgeBatchSize`` rows, each batch one short statement that skips
    /// rows another call holds (a ceremony being taken, say), so no lock is held or waited for long.
    public func purgeExpired(now: Date) async throws {
        // Tickets are kept a day past expiry, so that a late second use is told it was spent or revoked.
        let purges = [
            ("pending_ceremonies", "challenge_hash", now), ("sessions", "token_hash", now),
            ("enrollment_tickets", "hash", now.addingTimeInterval(-86_400)),
            // A grant's expiry is past every token's, and a day past its revocation.
            ("oauth_grants", "id", now),
            // Kept a day past expiry, so that a late poll is told the device code expired.
            ("oauth_device_authorizations", "grant_id", now.addingTimeInterval(-86_400)),
        ]
        try await policy.call(#function) {
            for (table, key, cutoff) in purges {
                while true {
                    let purge: PostgresQuery = """
                        WITH expired AS (
                            SELECT \(unescaped: key) FROM \(unescaped: table) WHERE expires_at <= \(cutoff)
                            LIMIT \(Self.purgeBatchSize) FOR UPDATE SKIP LOCKED
                        ), deleted AS (
                            DELETE FROM \(unescaped: table) WHERE \(unescaped: key) IN (SELECT \(unescaped: key) FROM expired)
                            RETURNING 1
                        )
                        SELECT count(*) FROM deleted
                        """
                    let deleted = try await leasingConnection { try await Self.rows(purge, on: $0) { try $0.next(Int64.self) }.first } ?? 0
                    guard deleted >= Self.purgeBatchSize else { break }
                    await Task.yield()
                }
            }
        }
    }

    // MARK: Writes on a connection

    /// Inserts `tenant`'s `session`; `deviceKeyID` is the device key it signed in with, whose removal ends it.
    static func insert(
        _ session: SessionRecord, of tenant: TenantID, signedInWith deviceKeyID: [UInt8]? = nil, on connection: PostgresConnection
    ) async throws {
        try await execute("""
            INSERT INTO sessions (\(unescaped: PostgresRows.sessionColumns()), device_key_id, tenant)
            VALUES (
                \(session.tokenHash.bytea), \(session.userHandle.bytea), \(session.createdAt), \(session.expiresAt),
                \(session.methods.joined(separator: " ")), \(deviceKeyID?.bytea),
                \(tenant)
            )
            """, on: connection)
    }

    /// Ends `tenant`'s sessions with these token hashes.
    static func deleteSessions(_ tokenHashes: [[UInt8]], of tenant: TenantID, on connection: PostgresConnection) async throws {
        guard !tokenHashes.isEmpty else { return }
        try await execute("DELETE FROM sessions WHERE token_hash = ANY(\(tokenHashes.map(\.bytea))) AND tenant = \(tenant)", on: connection)
    }
}
