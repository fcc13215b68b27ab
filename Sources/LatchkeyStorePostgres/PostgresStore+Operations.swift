import Foundation
import LatchkeyStore
import PostgresNIO

/// What readiness checks and metrics ask of the store.
extension PostgresStore {
    /// Bounded like every call: throws once no connection came within the connect timeout.
    public func checkReachable() async throws {
        guard try await firstRow("SELECT 1", { try $0.next(Int64.self) }) == 1 else {
            throw StoreError(.database, "PostgreSQL at \(configuration.server) answered nothing to SELECT 1")
        }
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
