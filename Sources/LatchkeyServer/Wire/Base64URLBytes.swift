import WebAuthn

/// Bytes that cross HTTP as a base64url string, WebAuthn's JSON form. Decoded once, when the body
/// is read; an empty string decodes to no bytes (members that must not be empty say so).
public struct Base64URLBytes: Codable, Sendable, Equatable {
    public var bytes: [UInt8]

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let bytes = Base64URL.decode(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "is not base64url")
        }
        self.bytes = bytes
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Base64URL.encode(bytes))
    }
}
