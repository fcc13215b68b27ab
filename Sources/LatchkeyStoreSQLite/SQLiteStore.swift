import Foundation
import LatchkeyStore
import ServiceLifecycle

/// The embedded default store: one SQLite file in WAL mode, migrated on open. The actor serialises
/// every statement on its single connection; SQLite's own locking guards other processes.
///
/// The actor runs on Swift's cooperative pool, not on a thread of its own: a store call is a few
/// microseconds of cached statements (WAL with `synchronous = NORMAL` does not sync on commit), and
/// hopping to a dedicated thread and back cost more than the call (measured: 15.7 → 7.5 context
/// switches per HTTP sign-in, BENCHMARKS.md). The price: a write that waits for another process's
/// lock (up to the 5 s busy timeout) holds a pool thread while it waits.
///
/// As a `Service`, ``run()`` waits for graceful shutdown and then closes the connection: list the
/// store before the HTTP server in a `ServiceGroup`, so it shuts down after the server has drained.
public actor SQLiteStore: LatchkeyStore {
    /// Nil once closed.
    private var connection: SQLiteConnection?

    /// Opens or creates the database at `path`, creating its folder, and migrates the schema, so a
    /// bad path or a database from a newer Latchkey fails here, before the server listens.
    public init(path: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw StoreError(.database, "cannot create the folder for the SQLite database at \(path): \(error)")
        }
        let connection = try SQLiteConnection(path: path)
        try SQLiteSchema.migrate(connection)
        self.connection = connection
    }

    /// Waits for graceful shutdown (or cancellation), then closes the database.
    public func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            // Cancelled: the service group is going away; close all the same.
        }
        close()
    }

    /// Closes the database now; every later call throws. Closing twice does nothing.
    public func close() {
        connection?.close()
        connection = nil
    }

    /// The open connection, or the error every call gets once the store is closed.
    func database() throws -> SQLiteConnection {
        guard let connection else { throw StoreError(.unavailable, "the store is closed") }
        return connection
    }

    /// One row rewritten: a commit appends to the WAL, so a full disk, an I/O error or a
    /// read-only file fails here as it would for a ceremony.
    public func checkWritable(now: Date) throws {
        try database().withStatement("""
            INSERT INTO store_health (id, checked_at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at
            """) { statement in
            try statement.bind(now)
            try statement.step()
        }
    }

    public func liveRecordCounts(now: Date) throws -> LiveRecordCounts {
        try database().withStatement("""
            SELECT (SELECT COUNT(*) FROM pending_ceremonies WHERE expires_at > ?1), (SELECT COUNT(*) FROM sessions WHERE expires_at > ?1)
            """) { row in
            try row.bind(now)
            guard try row.step() else { throw StoreError(.database, "SQLite answered nothing to a count") }
            return LiveRecordCounts(pendingCeremonies: Int(row.int64(0)), sessions: Int(row.int64(1)))
        }
    }

    /// How many statements the connection has prepared, for tests of the statement cache.
    var preparedStatementCount: Int { connection?.preparedStatementCount ?? 0 }
}
