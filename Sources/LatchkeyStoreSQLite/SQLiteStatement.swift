import CSQLite
import Foundation
import LatchkeyStore

/// A prepared statement, finalised when this value goes away. Owned by the statement cache of one
/// ``SQLiteConnection``, which resets it and clears its bindings after each use. Parameters are
/// 1-based, columns 0-based.
final class SQLiteStatement {
    private let statement: OpaquePointer

    init(_ statement: OpaquePointer) {
        self.statement = statement
    }

    deinit {
        sqlite3_finalize(statement)
    }

    /// Binds `values` to parameters 1, 2, … in order; `nil` binds NULL.
    func bind<each Value: SQLiteBindable>(_ values: repeat each Value) throws {
        var index: Int32 = 0
        for value in repeat each values {
            index += 1
            let status = value.bind(to: statement, at: index)
            guard status == SQLITE_OK else {
                throw StoreError(.database, "SQLite cannot bind parameter \(index): \(errorMessage)")
            }
        }
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
                throw SQLiteConstraintError(code: status, message: errorMessage)
            }
            throw SQLiteStatement.storeError(status, "SQLite step failed (\(status)): \(errorMessage)")
        }
    }

    /// Steps until the statement is done, for writes whose RETURNING rows were already read.
    func finish() throws {
        while try step() {}
    }

    /// Makes the statement ready for its next use: back to the start, every parameter NULL.
    func reset() {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    private var errorMessage: String {
        guard let database = sqlite3_db_handle(statement) else { return "no connection" }
        return String(cString: sqlite3_errmsg(database))
    }

    // MARK: Columns

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
    func bool(_ column: Int32) -> Bool { int64(column) != 0 }
    func optionalBool(_ column: Int32) -> Bool? { isNull(column) ? nil : bool(column) }
    func date(_ column: Int32) -> Date { Date(timeIntervalSince1970: sqlite3_column_double(statement, column)) }
    func optionalDate(_ column: Int32) -> Date? { isNull(column) ? nil : date(column) }

    /// The column's text as UTF-8 bytes, valid only inside `body`; empty for NULL.
    func withText<T>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        let pointer = sqlite3_column_text(statement, column)
        let count = Int(sqlite3_column_bytes(statement, column))
        return try body(UnsafeBufferPointer(start: count > 0 ? pointer : nil, count: count))
    }

    func text(_ column: Int32) -> String {
        withText(column) { String(decoding: $0, as: UTF8.self) }
    }

    func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }

    func blob(_ column: Int32) -> [UInt8] {
        let pointer = sqlite3_column_blob(statement, column)
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let pointer else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    func optionalBlob(_ column: Int32) -> [UInt8]? { isNull(column) ? nil : blob(column) }
}

/// A UNIQUE, PRIMARY KEY, NOT NULL or FOREIGN KEY constraint refused a write.
struct SQLiteConstraintError: Error {
    /// The extended result code, to tell which kind of constraint failed.
    let code: Int32
    let message: String

    static let foreignKey = SQLITE_CONSTRAINT | (3 << 8)
    static let primaryKey = SQLITE_CONSTRAINT | (6 << 8)
    static let unique = SQLITE_CONSTRAINT | (8 << 8)
}

extension SQLiteStatement {
    /// A failure as a ``StoreError`` of the class its result code says: no room (`SQLITE_FULL`),
    /// another process's lock held past the busy timeout (`busy`: nothing was done), unusable for
    /// now (I/O errors, a read-only file or folder, a file that cannot be opened), or anything else.
    static func storeError(_ status: Int32, _ message: String) -> StoreError {
        switch status & 0xFF {
        case SQLITE_FULL:
            StoreError(.full, message)
        case SQLITE_BUSY, SQLITE_LOCKED:
            StoreError(.busy, message)
        case SQLITE_IOERR, SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PROTOCOL:
            StoreError(.unavailable, message)
        default:
            StoreError(.database, message)
        }
    }
}
