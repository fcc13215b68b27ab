import LatchkeyJSON
import WebAuthn

/// The `extensions` of an options request, echoed into the options as sent. A number of 2^53 or more
/// in size, where a JSON number read as a `Double` starts to skip integers, is refused, naming its
/// member, rather than sent back changed; smaller whole numbers come back as sent, and fractions as the
/// nearest `Double` writes them.
package struct EchoedExtensions: Decodable, Sendable {
    /// Above this magnitude a `Double` no longer holds every integer.
    package static let exactLimit = 9_007_199_254_740_992.0

    package let members: [String: JSONValue]

    package init(from decoder: any Decoder) throws {
        members = try decoder.singleValueContainer().decode([String: JSONValue].self)
        if let path = Self.inexactNumber(in: .object(members), at: []) {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath + path,
                debugDescription: "is a number of 2^53 or more in size, which cannot be echoed exactly; send it as a string"))
        }
    }

    /// The path to the first number that may have changed when it was read, or nil.
    private static func inexactNumber(in value: JSONValue, at path: [MemberKey]) -> [MemberKey]? {
        switch value {
        case .number(let number):
            return abs(number) >= exactLimit ? path : nil
        case .array(let items):
            return items.indices.lazy.compactMap { inexactNumber(in: items[$0], at: path + [MemberKey(index: $0)]) }.first
        case .object(let members):
            return members.sorted { $0.key < $1.key }.lazy.compactMap { inexactNumber(in: $0.value, at: path + [MemberKey(name: $0.key)]) }.first
        case .null, .bool, .string:
            return nil
        }
    }

    /// A member name or array index in a coding path.
    private struct MemberKey: CodingKey {
        package let stringValue: String
        package let intValue: Int?
        package init(name: String) { (stringValue, intValue) = (name, nil) }
        package init(index: Int) { (stringValue, intValue) = ("\(index)", index) }
        package init?(stringValue: String) { self.init(name: stringValue) }
        package init?(intValue: Int) { self.init(index: intValue) }
    }
}
