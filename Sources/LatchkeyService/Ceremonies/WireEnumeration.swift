/// A closed set of string values in the wire format (`"required"`, `"direct"` …): decoding an
/// unknown value names the member, the value and the accepted ones.
public protocol WireEnumeration: RawRepresentable<String>, CaseIterable, Codable, Sendable {}

extension WireEnumeration {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Self(rawValue: text) else {
            let accepted = Self.allCases.map(\.rawValue)
            let list = accepted.dropLast().joined(separator: ", ") + (accepted.count > 1 ? " or " : "") + (accepted.last ?? "")
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not \(list)")
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
