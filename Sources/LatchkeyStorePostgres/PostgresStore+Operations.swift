import Foundation
import LatchkeyStore
import PostgresNIO

/// What readiness checks and metrics ask of the store.
extension PostgresStore {
    /// Bounded like every call: throws once no connection came within the lease timeout. A
    /// read-only server (a replica, or one in recovery) refuses the write with 25006: unavailable.
    public func checkWritable(now: Date) async throws {
        try await execute("""
            INSERT INTO store_health (id, checked_at) VALUES (1, \(now))
            ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at
            """)
    }

    public func liveRecordCounts(now: Date) async throws -> LiveRecordCounts {
        let counts = try await firstRow("""
            SELECT (SELECT count(*) FROM pending_ceremonies WHERE expires_at > \(now)),
                (SELECT count(*) FROM sessions WHERE expires_at > \(now))
            """) { row in
            LiveRecordCounts(pendingCeremonies: Int(try row.next(Int64.self)), sessions: Int(try row.next(Int64.self)))
        }
        guard let counts else { throw StoreError(.database, "PostgreSQL answered nothing to a count") }
        return counts
    }
}
