/// The relying party's user-verification requirement for one ceremony (WebAuthn §5.8.6).
public enum UserVerificationRequirement: String, Codable, Sendable, CaseIterable {
    case required
    case preferred
    case discouraged

    /// Decodes the string form; an unknown value names the accepted ones.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Self(rawValue: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not required, preferred or discouraged")
        }
        self = value
    }
}
