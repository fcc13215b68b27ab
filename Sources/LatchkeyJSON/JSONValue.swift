/// Any JSON value, kept as parsed, so that unknown or free-form members (extensions, client data)
/// can be read strictly and echoed back unchanged.
public enum JSONValue: Codable, Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let items = try? container.decode([JSONValue].self) {
            self = .array(items)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// `number` as an integer when it is a whole number below 10^15, which JSON writes in digits;
    /// nil for other numbers, written as a `Double`.
    static func wholeNumber(_ number: Double) -> Int64? {
        number.rounded() == number && abs(number) < 1e15 ? Int64(number) : nil
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let flag): try container.encode(flag)
        case .number(let number):
            if let whole = Self.wholeNumber(number) {
                try container.encode(whole)
            } else {
                try container.encode(number)
            }
        case .string(let text): try container.encode(text)
        case .array(let items): try container.encode(items)
        // A dictionary: encoders that keep members in order (``OrderedJSONEncoder``) sort its keys.
        case .object(let members): try container.encode(members)
        }
    }

    public subscript(member: String) -> JSONValue? {
        if case .object(let members) = self { return members[member] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    public var isNull: Bool { self == .null }

    /// A short name of the value's kind, for error messages.
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
