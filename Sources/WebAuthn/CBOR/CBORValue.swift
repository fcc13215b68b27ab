/// One decoded CBOR data item (RFC 8949), as far as WebAuthn needs it.
public indirect enum CBORValue: Hashable, Sendable {
    case unsigned(UInt64)
    /// A negative integer stored as CBOR does: the value is `-1 - n`.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBORValue])
    /// Map entries in the order they were encoded; keys are unique.
    case map([CBORMapEntry])
    case tagged(UInt64, CBORValue)
    case bool(Bool)
    case null
    case undefined
    case simple(UInt8)
    case float(Double)
}

/// One key-value pair of a CBOR map.
public struct CBORMapEntry: Hashable, Sendable {
    public let key: CBORValue
    public let value: CBORValue

    public init(key: CBORValue, value: CBORValue) {
        self.key = key
        self.value = value
    }
}

extension CBORValue {
    /// The integer value, when this is an integer that fits in `Int64`.
    public var int64: Int64? {
        switch self {
        case .unsigned(let n): return n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n): return n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: return nil
        }
    }

    public var byteString: [UInt8]? {
        if case .bytes(let bytes) = self { return bytes }
        return nil
    }

    public var textString: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    public var arrayItems: [CBORValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    public var mapEntries: [CBORMapEntry]? {
        if case .map(let entries) = self { return entries }
        return nil
    }

    /// The value stored under `key` in a map; nil for other items or a missing key.
    public subscript(key: CBORValue) -> CBORValue? {
        mapEntries?.first(where: { $0.key == key })?.value
    }

    /// The value stored under an integer key (COSE labels).
    public subscript(intKey key: Int64) -> CBORValue? {
        self[key >= 0 ? .unsigned(UInt64(key)) : .negative(UInt64(-1 - key))]
    }

    /// The value stored under a text key (attestation objects, statements).
    public subscript(textKey key: String) -> CBORValue? {
        self[.text(key)]
    }

    /// The item's kind with its article ("a byte string"), for error messages.
    public var kindName: String {
        switch self {
        case .unsigned, .negative: return "an integer"
        case .bytes: return "a byte string"
        case .text: return "a text string"
        case .array: return "an array"
        case .map: return "a map"
        case .tagged: return "a tagged item"
        case .bool: return "a boolean"
        case .null: return "null"
        case .undefined: return "undefined"
        case .simple: return "a simple value"
        case .float: return "a float"
        }
    }
}
