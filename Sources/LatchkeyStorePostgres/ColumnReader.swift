import LatchkeyStore
import PostgresNIO

/// Reads one row's columns in order. Each record reader takes the columns it needs, so a joined row
/// is read by calling the readers one after the other.
struct ColumnReader {
    private let cells: [PostgresCell]
    private var position = 0

    init(_ row: PostgresRow) {
        cells = Array(row)
    }

    /// The next column as `T`; NULL only when `T` is optional.
    mutating func next<T: PostgresDecodable>(_ type: T.Type = T.self) throws -> T {
        guard position < cells.count else {
            throw StoreError(.database, "a PostgreSQL row has \(cells.count) columns, fewer than the store reads")
        }
        defer { position += 1 }
        return try cells[position].decode(T.self)
    }

    /// Whether the next column is NULL (as every column of a row a LEFT JOIN did not find is).
    var nextIsNull: Bool {
        position < cells.count && cells[position].bytes == nil
    }

    mutating func skip(_ count: Int) {
        position += count
    }

    /// The next `bytea` column.
    mutating func bytes() throws -> [UInt8] {
        Array(try next(ByteBuffer.self).readableBytesView)
    }

    mutating func optionalBytes() throws -> [UInt8]? {
        try next(ByteBuffer?.self).map { Array($0.readableBytesView) }
    }

    /// The next `bytea` column holding UTF-8 text (see ``PostgresSchema``).
    mutating func utf8() throws -> String {
        String(buffer: try next(ByteBuffer.self))
    }

    mutating func optionalUTF8() throws -> String? {
        try next(ByteBuffer?.self).map { String(buffer: $0) }
    }
}

extension Array where Element == UInt8 {
    /// These bytes as a `bytea` parameter (postgres-nio sends a plain `[UInt8]` as `"char"[]`).
    var bytea: ByteBuffer { ByteBuffer(bytes: self) }
}

extension String {
    /// This text's UTF-8 as a `bytea` parameter (see ``PostgresSchema``).
    var utf8Bytea: ByteBuffer { ByteBuffer(string: self) }
}
