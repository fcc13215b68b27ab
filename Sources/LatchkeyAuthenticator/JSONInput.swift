import Foundation
import WebAuthn

/// Decodes the JSON the authenticator reads (options on stdin, the keys file), turning every
/// decoding failure into an ``AuthenticatorError`` whose message names the member at fault.
enum JSONInput {
    static func decode<T: Decodable>(
        _ type: T.Type, from bytes: [UInt8], source: String, code: AuthenticatorError.Code, decoder: JSONDecoder = JSONDecoder()
    ) throws -> T {
        do {
            return try decoder.decode(type, from: Data(bytes))
        } catch let error as DecodingError {
            throw AuthenticatorError(code, "\(source): \(message(for: error))")
        }
    }

    /// `rp.id must be a string`, `user is missing`, `excludeCredentials[0].id must be base64url`, ...
    static func message(for error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is missing"
        case .valueNotFound(_, let context):
            let member = path(context.codingPath)
            return member.isEmpty ? "not a JSON object" : "\(member) must not be null"
        case .typeMismatch(let type, let context):
            let member = path(context.codingPath)
            return member.isEmpty ? "not a JSON object" : "\(member) must be \(kindName(type))"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "not valid JSON" }
            return "\(path(context.codingPath)) \(context.debugDescription)"
        @unknown default:
            return "not readable"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        var text = ""
        for key in keys {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }

    private static func kindName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "a boolean"
        case is any BinaryInteger.Type: return "an integer"
        case is [Any].Type: return "an array"
        case is [String: Any].Type: return "an object"
        default: return "an object"
        }
    }
}

/// A binary member of WebAuthn JSON: base64url without padding, decoded while reading.
struct Base64URLMember: Codable, Hashable, Sendable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let bytes = Base64URL.decode(try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "must be base64url")
        }
        self.bytes = bytes
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Base64URL.encode(bytes))
    }
}
