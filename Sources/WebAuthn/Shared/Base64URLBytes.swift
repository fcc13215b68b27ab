/// A binary member of WebAuthn's JSON forms (`PublicKeyCredentialCreationOptionsJSON`,
/// `RegistrationResponseJSON`, ...): base64url without padding in JSON, bytes once decoded. An empty
/// string decodes to no bytes (members that must not be empty say so); anything else that is not
/// base64url is a `DecodingError` reading "is not base64url" (saying so when it is standard base64,
/// as `Data.base64EncodedString()` writes it).
public struct Base64URLBytes: Codable, Sendable, Hashable {
    public var bytes: [UInt8]

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let bytes = Base64URL.decode(text) else {
            let standard = text.contains("+") || text.contains("/")
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: standard ? "is not base64url: it has + or /, so it is standard base64; write - for + and _ for /" : "is not base64url")
        }
        self.bytes = bytes
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Base64URL.encode(bytes))
    }
}
