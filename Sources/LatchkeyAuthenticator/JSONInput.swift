import Foundation
import LatchkeyJSON
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
