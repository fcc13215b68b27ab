import CSQLite
import Foundation

/// A Swift value that binds to one statement parameter, without copying it into an intermediate
/// buffer: SQLite copies the bytes itself (`SQLITE_TRANSIENT`).
protocol SQLiteBindable {
    /// Binds this value to parameter `index`; returns SQLite's status.
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32
}

/// Tells SQLite to copy bound bytes before the call returns.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

extension Int64: SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        sqlite3_bind_int64(statement, index, self)
    }
}

extension Bool: SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        sqlite3_bind_int64(statement, index, self ? 1 : 0)
    }
}

/// Dates are stored as seconds since 1970, as a REAL.
extension Date: SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        sqlite3_bind_double(statement, index, timeIntervalSince1970)
    }
}

extension String: SQLiteBindable {
    /// Binds the UTF-8 bytes with an explicit length, so a NUL inside the string does not end it.
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        var text = self
        return text.withUTF8 { utf8 in
            guard let base = utf8.baseAddress, !utf8.isEmpty else {
                // A NULL pointer would bind NULL: an empty string is still text.
                return sqlite3_bind_text64(statement, index, "", 0, sqliteTransient, UInt8(SQLITE_UTF8))
            }
            return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) { characters in
                sqlite3_bind_text64(statement, index, characters, UInt64(utf8.count), sqliteTransient, UInt8(SQLITE_UTF8))
            }
        }
    }
}

extension Array: SQLiteBindable where Element == UInt8 {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                // A NULL pointer would bind NULL: an empty array is still a blob.
                return sqlite3_bind_zeroblob(statement, index, 0)
            }
            return sqlite3_bind_blob64(statement, index, base, UInt64(bytes.count), sqliteTransient)
        }
    }
}

extension Optional: SQLiteBindable where Wrapped: SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        switch self {
        case .none: sqlite3_bind_null(statement, index)
        case .some(let value): value.bind(to: statement, at: index)
        }
    }
}
