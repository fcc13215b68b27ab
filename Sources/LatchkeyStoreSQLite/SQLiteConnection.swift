import CSQLite
import Foundation
import LatchkeyStore

/// One SQLite connection (`sqlite3*`) with its prepared statements, closed by ``close()`` or when
/// this value goes away. Not thread-safe on its own: ``SQLiteStore`` serialises every use.
final class SQLiteConnection {
    private let handle: OpaquePointer
    /// Prepared statements by SQL text, so each statement is parsed once per connection.
    private var statements: [String: SQLiteStatement] = [:]
    private var isOpen = true
    /// What `current_tenant()` answers in this connection's statements: the tenant of the store call that holds it.
    private let tenantSlot = TenantSlot()

    /// Opens (creating if needed) the database at `path` in WAL mode with foreign keys on.
    init(path: String) throws {
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard status == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(opened)
            throw StoreError(.database, "cannot open SQLite database at \(path): \(message)")
        }
        handle = opened
        sqlite3_extended_result_codes(handle, 1)
        waitForLocks(upTo: .seconds(5))
        // Switching to WAL needs a moment of exclusive access; another process opening the same new
        // file can hold it, and the busy handler does not cover this step, so retry briefly.
        var attempts = 0
        while true {
            do {
                try execute("PRAGMA journal_mode = WAL")
                break
            } catch where attempts < 50 {
                attempts += 1
                usleep(100_000)
            } catch {
                close()
                throw error
            }
        }
        do {
            try addTenantFunction()
            try execute("PRAGMA foreign_keys = ON")
            try execute("PRAGMA synchronous = NORMAL")
            // A bounded WAL: it is checkpointed into the database every 1,000 pages (4 MiB of 4 KiB
            // pages, SQLite's default), and cut back to at most 4 MiB whenever it starts over, so a
            // store needs its database's size plus a few MiB free (docs/OPERATIONS.md, "When things
            // fail"). Ceremonies rewrite the same few pages, so a checkpoint copies and syncs about
            // as much after 1,000 pages of WAL as after 256: the longer interval costs each
            // ceremony about a quarter as much.
            // Up to 64 MiB of pages kept between statements (SQLite's default is 2 MiB), filled only as pages are read:
            // on a store of a million users a lookup's B-tree pages then stay in memory instead of being read from
            // the file again, and a sign-in costs the same as on an empty store (BENCHMARKS.md, "A big store").
            try execute("PRAGMA cache_size = -\(Self.pageCacheKiB)")
            try execute("PRAGMA wal_autocheckpoint = \(Self.walCheckpointPages)")
            try execute("PRAGMA journal_size_limit = \(Self.walSizeLimit)")
        } catch {
            close()
            throw error
        }
    }

    /// The tenant `current_tenant()` names until the next call: every statement of a tenant-scoped
    /// ``SQLiteStore`` says `tenant = current_tenant()`, so its binding order never carries the tenant.
    func use(_ tenant: TenantID) {
        if tenantSlot.tenant != tenant { tenantSlot.tenant = tenant }
    }

    /// `current_tenant()`: the text of ``use(_:)``'s tenant. Not deterministic (its value changes between
    /// calls), and it reads no column, so an index on `tenant` serves a comparison with it.
    private func addTenantFunction() throws {
        let slot = Unmanaged.passUnretained(tenantSlot).toOpaque()
        let status = sqlite3_create_function_v2(handle, "current_tenant", 0, SQLITE_UTF8, slot, { context, _, _ in
            guard let context, let data = sqlite3_user_data(context) else { return }
            Unmanaged<TenantSlot>.fromOpaque(data).takeUnretainedValue().text.withUnsafeBufferPointer { text in
                sqlite3_result_text(context, text.baseAddress, Int32(text.count - 1), sqliteTransient)
            }
        }, nil, nil, nil)
        guard status == SQLITE_OK else { throw StoreError(.database, "SQLite cannot add current_tenant(): \(errorMessage)") }
    }

    /// How long a statement waits for another process's lock before it fails as `busy`; 0: not at all.
    func waitForLocks(upTo duration: Duration) {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        sqlite3_busy_timeout(handle, Int32(clamping: milliseconds))
    }

    /// KiB of pages the connection keeps cached at most.
    static let pageCacheKiB = 65_536
    /// Pages of WAL after which a write checkpoints it into the database.
    static let walCheckpointPages = 1000
    /// Bytes the WAL file is cut back to when it starts over after a checkpoint.
    static let walSizeLimit = 4 << 20

    deinit {
        close()
    }

    /// Finalises every cached statement and closes the connection. Calling it again does nothing.
    func close() {
        guard isOpen else { return }
        isOpen = false
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that return no rows, parsing them each time: for migrations and
    /// pragmas only. Everything else goes through ``withStatement(_:_:)``.
    func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        guard status == SQLITE_OK else {
            let message = errorMessage.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(errorMessage)
            throw SQLiteStatement.storeError(sqlite3_extended_errcode(handle), "SQLite: \(message)")
        }
    }

    /// Lends the prepared statement for `sql` to `body`, preparing it on first use, and resets it
    /// and clears its bindings afterwards, whether `body` finished or threw.
    func withStatement<T>(_ sql: String, _ body: (SQLiteStatement) throws -> T) throws -> T {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        return try body(statement)
    }

    private func cachedStatement(_ sql: String) throws -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        var prepared: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
        guard status == SQLITE_OK, let prepared else {
            throw SQLiteStatement.storeError(status, "SQLite cannot prepare statement: \(errorMessage)")
        }
        let statement = SQLiteStatement(prepared)
        statements[sql] = statement
        return statement
    }

    /// How many statements this connection has prepared (and keeps).
    var preparedStatementCount: Int { statements.count }

    /// The text of every statement this connection has prepared (and keeps).
    var preparedStatements: [String] { Array(statements.keys) }

    /// Runs `body` inside `BEGIN IMMEDIATE ... COMMIT`, rolling back if it throws. Taking the write
    /// lock at the start makes a transaction that reads and then writes safe against other processes.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try run("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            if sqlite3_get_autocommit(handle) == 0 {
                try? run("ROLLBACK")
            }
            throw error
        }
    }

    /// Runs one cached statement that returns no rows.
    private func run(_ sql: String) throws {
        try withStatement(sql) { try $0.finish() }
    }

    var errorMessage: String { String(cString: sqlite3_errmsg(handle)) }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Throws when a row refers to one that does not exist (`PRAGMA foreign_key_check`), as a migration
    /// run with foreign keys off must not leave.
    func checkForeignKeys() throws {
        let broken = try withStatement("PRAGMA foreign_key_check") { row in try row.step() ? row.text(0) : nil }
        if let broken { throw StoreError(.database, "a migration left rows of \(broken) that refer to nothing") }
    }

    var userVersion: Int {
        get throws {
            try withStatement("PRAGMA user_version") { try $0.step() ? Int($0.int64(0)) : 0 }
        }
    }
}

/// The tenant behind `current_tenant()`, owned by its connection (and so used under the store's lock only).
private final class TenantSlot {
    var tenant = TenantID.default {
        didSet { text = tenant.rawValue.utf8CString }
    }
    /// The tenant's name, NUL-terminated, made once per change rather than per statement.
    private(set) var text = TenantID.default.rawValue.utf8CString
}
