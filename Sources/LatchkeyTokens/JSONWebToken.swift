import Foundation
import LatchkeyJSON
import WebAuthn

/// Signs JSON Web Tokens (RFC 7519) as compact JWS with ES256 (RFC 7515, RFC 7518 §3.4).
public enum JSONWebToken {
    struct Header: Encodable {
        let alg = "ES256"
        let typ = "JWT"
        var kid: String
    }

    /// One encoder for every token: JSONEncoder is safe to share once configured.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// The base64url JOSE header of the tokens the key with this ID signs (made once per key).
    static func encodedHeader(keyID: String) throws -> String {
        Base64URL.encode(try encoder.encode(Header(kid: keyID)))
    }

    /// `header.claims.signature`, each part base64url, the header naming `key`'s ID.
    public static func sign(_ claims: some Encodable, with key: TokenSigningKey) throws -> String {
        if let text = claims as? any JSONTextEncodable { return try sign(written: text, with: key) }
        return try sign(payload: Base64URL.encode(try encoder.encode(claims)), with: key)
    }

    /// ``sign(_:with:)`` of claims that write their own JSON.
    public static func sign(written claims: some JSONTextEncodable, with key: TokenSigningKey) throws -> String {
        var json = JSONText(capacity: 384)
        claims.write(to: &json)
        return try sign(payload: Base64URL.encode(json.bytes), with: key)
    }

    private static func sign(payload: String, with key: TokenSigningKey) throws -> String {
        let signingInput = key.encodedHeader + "." + payload
        return signingInput + "." + Base64URL.encode(try key.sign(Array(signingInput.utf8)))
    }
}
