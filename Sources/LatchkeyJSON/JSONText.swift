import Foundation

/// JSON written by hand for the replies and tokens every ceremony sends, where Foundation's `JSONEncoder`
/// (its generic boxing, dictionaries and string building) cost more than the rest of the reply.
/// Output is RFC 8259 JSON as `JSONEncoder` with `.withoutEscapingSlashes` writes it: UTF-8, with
/// `"`, `\` and control characters escaped.
public struct JSONText {
    public private(set) var bytes: [UInt8] = []
    private var needsComma = false

    public init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
    }

    /// Writes `{`, the members `body` writes, then `}`.
    public mutating func object(_ body: (inout JSONText) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
        body(&self)
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Writes `[`, one element per item, then `]`.
    public mutating func array<Item>(_ items: [Item], _ element: (inout JSONText, Item) -> Void) {
        bytes.append(UInt8(ascii: "["))
        needsComma = false
        for item in items {
            separate()
            element(&self, item)
            needsComma = true
        }
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    public mutating func member(_ key: String, _ value: String) {
        writeKey(key)
        string(value)
    }

    public mutating func member(_ key: String, _ value: Int) {
        writeKey(key)
        bytes += Array(String(value).utf8)
    }

    public mutating func member(_ key: String, _ value: Bool) {
        writeKey(key)
        bytes += value ? Array("true".utf8) : Array("false".utf8)
    }

    /// A member whose value is an array of strings.
    public mutating func member(_ key: String, strings values: [String]) {
        member(key) { json in json.array(values) { json, value in json.element(value) } }
    }

    /// A member whose value is a free-form JSON value (client extension inputs, echoed as sent).
    public mutating func member(_ key: String, _ value: JSONValue) {
        writeKey(key)
        write(value)
        needsComma = true
    }

    /// A member whose value `body` writes (an object or an array).
    public mutating func member(_ key: String, _ body: (inout JSONText) -> Void) {
        writeKey(key)
        body(&self)
        needsComma = true
    }

    /// Writes `value` as `JSONValue.encode(to:)` has `JSONEncoder` write it: whole numbers in
    /// digits, other numbers as `JSONEncoder` writes a `Double`.
    private mutating func write(_ value: JSONValue) {
        switch value {
        case .null: bytes += Array("null".utf8)
        case .bool(let flag): bytes += flag ? Array("true".utf8) : Array("false".utf8)
        case .number(let number):
            if let whole = JSONValue.wholeNumber(number) {
                bytes += Array(String(whole).utf8)
            } else {
                bytes += Array(Self.doubleText(number).utf8)
            }
        case .string(let text): string(text)
        case .array(let items): array(items) { json, item in json.write(item) }
        case .object(let members):
            // In the order of the keys: a dictionary's own order differs between processes.
            object { json in
                for key in members.keys.sorted() { members[key].map { json.member(key, $0) } }
            }
        }
        needsComma = true
    }

    /// A string element of an array (inside ``array(_:_:)``'s closure), or a whole document.
    public mutating func element(_ value: String) {
        string(value)
    }

    /// A number, `true`, `false` or `null`, written as it is, as an element of an array or a whole document.
    public mutating func element(literal text: String) {
        bytes += Array(text.utf8)
        needsComma = true
    }

    /// A member whose value is a number, `true`, `false` or `null`, written as it is.
    public mutating func member(_ key: String, literal text: String) {
        writeKey(key)
        element(literal: text)
    }

    /// `number` as `JSONEncoder` writes a `Double` that is not a whole number; `null` for one JSON cannot write.
    public static func doubleText(_ number: Double) -> String {
        (try? encoder.encode(number)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }

    private mutating func writeKey(_ key: String) {
        separate()
        string(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings (tokens, base64url, names) need no escape: copied whole.
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            bytes.append(contentsOf: value.utf8)
            bytes.append(UInt8(ascii: "\""))
            needsComma = true
            return
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x08: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()
}

/// A value that writes its own JSON (see ``JSONText``); the server's replies and the token signer prefer it.
public protocol JSONTextEncodable: Encodable {
    func write(to json: inout JSONText)
}
