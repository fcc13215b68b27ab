import Foundation
import LatchkeyStore
import ServiceLifecycle
import Synchronization

/// The embedded default store: one SQLite file in WAL mode, migrated on open. A lock serialises
/// every statement on its connection; SQLite's own locking guards other processes. A second connection
/// reads the live-record counts the metrics report, beside the first, so a count over many rows never
/// holds the connection every request waits for.
///
/// A store call runs on the thread that makes it, holding the lock for its few microseconds of
/// cached statements (WAL with `synchronous = NORMAL` does not sync on commit): it suspends only
/// to pause between attempts, so a request's task stays on its event loop instead of hopping to an
/// actor's executor and back (BENCHMARKS.md). A call that meets another process's lock waits for it
/// up to `lockWait`, holding its thread, then fails as `busy` having done nothing: the server opens
/// the store with no wait at all and, under its ``StoreCallPolicy``, makes a busy call again after
/// a pause that does not hold its event loop (``applying(_:)``).
///
/// As a `Service`, ``run()`` waits for graceful shutdown and then closes the connection: list the
/// store before the HTTP server in a `ServiceGroup`, so it shuts down after the server has drained.
public final class SQLiteStore: LatchkeyStore, Sendable {
    /// The connection, shared by every store ``applying(_:)`` made from this one.
    private let database: LockedConnection
    /// A second connection for the operations' counts, which read many rows: in WAL mode it reads beside the writer
    /// instead of holding the one connection every request waits for.
    private let counting: LockedConnection
    /// Where each event written goes: one pending delivery per receiver.
    let webhooks: WebhookOutbox
    /// How each call is made: retried while busy, timed.
    let policy: StoreCallPolicy
    /// Whose records every call reads and writes (`current_tenant()` in each statement).
    public let tenant: TenantID

    /// Opens or creates the database at `path`, creating its folder, and migrates the schema, so a
    /// bad path or a database from a newer Latchkey fails here, before the server listens. The
    /// database holds token signing keys: a folder it creates is `0700`, a file `0600` (SQLite gives
    /// the `-wal` and `-shm` files the database's mode), whatever the process's umask. Opening and
    /// migrating wait up to 5 s for another process's lock; later calls up to `lockWait`.
    public init(path: String, webhooks: WebhookOutbox = .none, lockWait: Duration = .seconds(5)) throws {
        self.webhooks = webhooks
        policy = .direct
        tenant = .default
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StoreError(.database, "cannot create the folder for the SQLite database at \(path): \(error)")
        }
        try createPrivately(path)
        let opened = try SQLiteConnection(path: path)
        try SQLiteSchema.migrate(opened)
        opened.waitForLocks(upTo: lockWait)
        database = LockedConnection(opened)
        let reader = try SQLiteConnection(path: path)
        reader.waitForLocks(upTo: lockWait)
        // Its counts read a range of one index a minute: SQLite's default 2 MiB of cache is plenty.
        try reader.execute("PRAGMA cache_size = -2000")
        counting = LockedConnection(reader)
    }

    private init(sharing store: SQLiteStore, policy: StoreCallPolicy, tenant: TenantID, webhooks: WebhookOutbox? = nil) {
        database = store.database
        counting = store.counting
        self.webhooks = webhooks ?? store.webhooks
        self.policy = policy
        self.tenant = tenant
    }

    public func applying(_ policy: StoreCallPolicy) -> any LatchkeyStore { SQLiteStore(sharing: self, policy: policy, tenant: tenant) }

    /// The same store (its connection and call policy shared) reading and writing `tenant`'s records only, its events
    /// delivered to `webhooks`. The operations calls (``checkWritable(now:)``, ``liveRecordCounts(now:)``,
    /// ``purgeExpired(now:)``) and the purge of old events span every tenant.
    public func scoped(to tenant: TenantID, webhooks: WebhookOutbox) -> any LatchkeyStore {
        SQLiteStore(sharing: self, policy: policy, tenant: tenant, webhooks: webhooks)
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
        for held in [database, counting] {
            held.connection.withLock { connection in
                connection?.close()
                connection = nil
            }
        }
    }

    /// Runs `body` with the open connection, holding the lock: one call's statements (and its
    /// transaction) are never interleaved with another's. Never call it from inside `body`. Every
    /// store call enters here once, under the ``policy``; `function` names the call.
    func withDatabase<T>(_ function: String = #function, _ body: (SQLiteConnection) throws -> T) async throws -> T {
        try await policy.call(function) { try lockedDatabase(body) }
    }

    /// `body` with the open connection (its `current_tenant()` this store's ``tenant``), holding the lock,
    /// outside the ``policy``: for a call made of several steps (a purge in batches), which applies the
    /// policy once around them all.
    func lockedDatabase<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try holding(database, body)
    }

    /// `body` with `held`'s open connection (its `current_tenant()` this store's ``tenant``), holding its lock.
    private func holding<T>(_ held: LockedConnection, _ body: (SQLiteConnection) throws -> T) throws -> T {
        try held.connection.withLock { connection throws -> Locked<T> in
            guard let connection else { throw StoreError(.unavailable, "the store is closed") }
            connection.use(tenant)
            return Locked(try body(connection))
        }.value
    }

    /// ``withDatabase(_:_:)`` inside `BEGIN IMMEDIATE ... COMMIT`, rolled back if `body` throws.
    func withTransaction<T>(_ function: String = #function, _ body: (SQLiteConnection) throws -> T) async throws -> T {
        try await withDatabase(function) { database in try database.transaction { try body(database) } }
    }

    /// ``withDatabase(_:_:)`` for one cached statement.
    func withStatement<T>(_ sql: String, function: String = #function, _ body: (SQLiteStatement) throws -> T) async throws -> T {
        try await withDatabase(function) { try $0.withStatement(sql, body) }
    }

    /// One row rewritten: a commit appends to the WAL, so a full disk, an I/O error or a
    /// read-only file fails here as it would for a ceremony.
    public func checkWritable(now: Date) async throws {
        try await withStatement("""
            INSERT INTO store_health (id, checked_at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at
            """) { statement in
            try statement.bind(now)
            try statement.step()
        }
    }

    /// Counted on the second connection: a count reads every live row, and must not hold the requests' connection.
    public func liveRecordCounts(now: Date) async throws -> LiveRecordCounts {
        try await policy.call(#function) {
            try holding(counting) { connection in
                try connection.withStatement(Self.liveCounts) { row in
                    try row.bind(now)
                    guard try row.step() else { throw StoreError(.database, "SQLite answered nothing to a count") }
                    return LiveRecordCounts(pendingCeremonies: Int(row.int64(0)), sessions: Int(row.int64(1)))
                }
            }
        }
    }

    private static let liveCounts = """
        SELECT (SELECT COUNT(*) FROM pending_ceremonies WHERE expires_at > ?1), (SELECT COUNT(*) FROM sessions WHERE expires_at > ?1)
        """

    /// How many statements the connection has prepared, for tests of the statement cache.
    var preparedStatementCount: Int { database.connection.withLock { $0?.preparedStatementCount ?? 0 } }

    /// The text of every statement the connection has prepared, for the planner tests: every statement a store call
    /// sends is prepared (and kept) on first use.
    var preparedStatements: [String] {
        database.connection.withLock { $0?.preparedStatements ?? [] } + counting.connection.withLock { $0?.preparedStatements ?? [] }
    }
}

/// The one connection, nil once closed, behind the lock every call takes.
private final class LockedConnection: Sendable {
    let connection: Mutex<SQLiteConnection?>
    init(_ connection: sending SQLiteConnection) { self.connection = Mutex(connection) }
}

/// A value carried out of the lock. `Mutex` demands that what leaves it be disconnected from the
/// connection, which the compiler cannot see through a generic `body`; every result is a value
/// built from the connection's rows, never the connection or a statement itself.
struct Locked<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// Creates an empty file at `path` that only its owner may read and write (SQLite takes an empty
/// file for a new database); one that exists is left as it is.
private func createPrivately(_ path: String) throws {
    let created = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard created >= 0 else {
        guard errno == EEXIST else {
            throw StoreError(.database, "cannot create the SQLite database at \(path): \(String(cString: strerror(errno)))")
        }
        return
    }
    fchmod(created, 0o600)
    close(created)
}
