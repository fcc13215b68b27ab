/// Named values read from a request: a route's path parameters (`{id}`) or its query. A name given
/// twice answers with its first value.
public struct Parameters: Sendable {
    private var pairs: [(name: Substring, value: Substring)]

    init(_ pairs: [(name: Substring, value: Substring)] = []) {
        self.pairs = pairs
    }

    /// The first value of `name`.
    public func get(_ name: String) -> String? {
        pairs.first { $0.name == name }.map { String($0.value) }
    }

    /// Every pair, in the order given, repeats included.
    var all: [(name: String, value: String)] { pairs.map { (String($0.name), String($0.value)) } }

    /// A form body or an OAuth query (`application/x-www-form-urlencoded`): as ``query(_:)``, with `+` a space.
    static func form(_ text: Substring) -> Parameters {
        guard text.utf8.contains(UInt8(ascii: "+")) else { return query(text) }
        let spaced = String(decoding: text.utf8.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
        return query(Substring(spaced))
    }

    mutating func append(_ name: Substring, _ value: Substring) {
        pairs.append((name, value))
    }

    /// A query (what follows `?`): `&`-separated `name=value` pairs, values percent-decoded (a value that does not
    /// decode is kept as sent), names as sent; a pair without `=` has the empty value.
    static func query(_ query: Substring) -> Parameters {
        // Scanned as UTF-8 (`&`, `=` and `%` are ASCII): every request with a query or a form reads it this way.
        var parameters = Parameters()
        let bytes = query.utf8
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.endIndex
            if start < end {
                let pair = query[start..<end]
                if let equals = pair.utf8.firstIndex(of: UInt8(ascii: "=")) {
                    let value = pair[pair.utf8.index(after: equals)...]
                    let decoded = value.utf8.contains(UInt8(ascii: "%"))
                        ? String(value).removingPercentEncodingStrictly().map { Substring($0) } ?? value : value
                    parameters.append(pair[..<equals], decoded)
                } else {
                    parameters.append(pair, "")
                }
            }
            start = end < bytes.endIndex ? bytes.index(after: end) : end
        }
        return parameters
    }
}

extension String {
    /// The text with `%XX` escapes decoded, nil when an escape is malformed or the bytes are not UTF-8.
    func removingPercentEncodingStrictly() -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
