import CSQLite
import Foundation

/// One SQLite connection (`sqlite3*`), closed when this value goes away. Not thread-safe on its
/// own: ``SQLiteStore`` serialises every use.
final class SQLiteConnection {
    private let handle: OpaquePointer

    /// Opens (creating if needed) the database at `path` in WAL mode with foreign keys on.
    init(path: String) throws {
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard status == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(opened)
            throw StoreError(.database, "cannot open SQLite database at \(path): \(message)")
        }
        handle = opened
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, 5_000)
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
            }
        }
        try execute("PRAGMA foreign_keys = ON")
        try execute("PRAGMA synchronous = NORMAL")
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that return no rows.
    func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &errorMessage) == SQLITE_OK else {
            let message = errorMessage.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(errorMessage)
            throw StoreError(.database, "SQLite: \(message)")
        }
    }

    func prepare(_ sql: String) throws -> SQLiteStatement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw StoreError(.database, "SQLite cannot prepare statement: \(errorMessage)")
        }
        return SQLiteStatement(statement, connection: self)
    }

    /// Runs `body` inside `BEGIN IMMEDIATE ... COMMIT`, rolling back if it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    var errorMessage: String { String(cString: sqlite3_errmsg(handle)) }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes(handle)) }

    var userVersion: Int {
        get throws {
            let statement = try prepare("PRAGMA user_version")
            return try statement.step() ? statement.int(0) : 0
        }
    }
}

/// A prepared statement, finalised when this value goes away. Parameters are 1-based, columns 0-based.
final class SQLiteStatement {
    private let statement: OpaquePointer
    private let connection: SQLiteConnection
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ statement: OpaquePointer, connection: SQLiteConnection) {
        self.statement = statement
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(statement)
    }

    /// Binds values in order; `nil` binds NULL.
    @discardableResult
    func bind(_ values: SQLiteValue?...) throws -> SQLiteStatement {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case nil: status = sqlite3_bind_null(statement, index)
            case .integer(let number)?: status = sqlite3_bind_int64(statement, index, number)
            case .real(let number)?: status = sqlite3_bind_double(statement, index, number)
            case .text(let text)?:
                // An explicit byte length: a NUL inside the string must not silently end it.
                let bytes = Array(text.utf8)
                status = (bytes + [0]).withUnsafeBytes { buffer in
                    sqlite3_bind_text(
                        statement, index, buffer.baseAddress?.assumingMemoryBound(to: CChar.self),
                        Int32(bytes.count), Self.transient)
                }
            case .blob(let bytes)?:
                status = bytes.withUnsafeBytes { buffer in
                    sqlite3_bind_blob(statement, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), Self.transient)
                }
            }
            guard status == SQLITE_OK else {
                throw StoreError(.database, "SQLite cannot bind parameter \(index): \(connection.errorMessage)")
            }
        }
        return self
    }

    /// Advances to the next row; false when done. Constraint violations become ``SQLiteConstraintError``.
    @discardableResult
    func step() throws -> Bool {
        let status = sqlite3_step(statement)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            if status & 0xFF == SQLITE_CONSTRAINT {
                throw SQLiteConstraintError(message: connection.errorMessage)
            }
            throw StoreError(.database, "SQLite step failed (\(status)): \(connection.errorMessage)")
        }
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }
    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(statement, column)) }
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }
    func date(_ column: Int32) -> Date { Date(timeIntervalSince1970: double(column)) }
    func optionalDate(_ column: Int32) -> Date? { isNull(column) ? nil : date(column) }

    func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }

    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let pointer = sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    func optionalBlob(_ column: Int32) -> [UInt8]? { isNull(column) ? nil : blob(column) }
}

/// A value bound to a statement parameter.
enum SQLiteValue {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    static func date(_ date: Date) -> SQLiteValue { .real(date.timeIntervalSince1970) }
    static func bool(_ flag: Bool) -> SQLiteValue { .integer(flag ? 1 : 0) }
}

/// A UNIQUE, NOT NULL or FOREIGN KEY constraint refused a write.
struct SQLiteConstraintError: Error {
    let message: String
}
