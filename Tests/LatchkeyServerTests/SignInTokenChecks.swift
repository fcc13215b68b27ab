import Foundation
import LatchkeyTokens
import WebAuthn

/// Reads and checks a sign-in token in the tests: the compact JWS parts, the key named by `kid`
/// in a key set, and the ES256 signature through the core's COSE verifier. (The end-to-end tests
/// verify the same tokens with PyJWT, an independent implementation.)
enum SignInTokenChecks {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The header and claims of `token` after its signature verified against `keys`.
    static func verify(_ token: String, with keys: [[String: Any]]) throws -> (header: [String: Any], claims: [String: Any]) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let claimBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]), signature.count == 64
        else { throw Failure("not a compact ES256 JWS: \(token)") }
        let header = try object(headerBytes)
        guard header["alg"] as? String == "ES256", let kid = header["kid"] as? String else {
            throw Failure("header is not ES256 with a kid: \(header)")
        }
        guard let jwk = keys.first(where: { $0["kid"] as? String == kid }),
              let x = (jwk["x"] as? String).flatMap(Base64URL.decode), let y = (jwk["y"] as? String).flatMap(Base64URL.decode)
        else { throw Failure("no key \(kid) in the key set") }
        let key = try COSEKey(.map([
            CBORMapEntry(key: .unsigned(1), value: .unsigned(2)), CBORMapEntry(key: .unsigned(3), value: .negative(6)),
            CBORMapEntry(key: .negative(0), value: .unsigned(1)), CBORMapEntry(key: .negative(1), value: .bytes(x)),
            CBORMapEntry(key: .negative(2), value: .bytes(y)),
        ]))
        try key.verify(
            signature: try ECDSASignature.der(fromRaw: signature, coordinateLength: 32), over: Array((parts[0] + "." + parts[1]).utf8))
        return (header, try object(claimBytes))
    }

    private static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw Failure("not a JSON object")
        }
        return object
    }
}
