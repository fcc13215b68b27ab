import Foundation
import LatchkeyTokens
import WebAuthn

/// Reads a sign-in token in the route tests: its signature checked against a key set as `/.well-known/jwks.json`
/// serves it (``JSONWebToken/verify(_:keys:)``, tested on its own in LatchkeyTokensTests), then its header and claims.
enum SignInTokenChecks {
    /// The header and claims of `token` after its signature verified against `keys`.
    static func verify(_ token: String, with keys: [[String: Any]]) throws -> (header: [String: Any], claims: [String: Any]) {
        let set = try JSONDecoder().decode([JSONWebKey].self, from: try JSONSerialization.data(withJSONObject: keys))
        let verified = try JSONWebToken.verify(token, keys: set)
        guard let header = Base64URL.decode(String(token.prefix { $0 != "." })) else { throw TokenError("the header is not base64url") }
        return (try object(header), try object(verified.claims))
    }

    private static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw TokenError("not a JSON object")
        }
        return object
    }
}
