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
            throw AuthenticatorError(code, "\(source): \(JSONDecodingProblem.message(for: error))")
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
