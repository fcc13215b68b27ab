import WebAuthn

/// A P-256 public key as a JSON Web Key (RFC 7517, RFC 7518 §6.2), for ES256 signatures.
public struct JSONWebKey: Codable, Sendable, Equatable {
    public var kty = "EC"
    public var crv = "P-256"
    /// The coordinates, base64url, 32 bytes each.
    public var x: String
    public var y: String
    /// The RFC 7638 thumbprint of the key.
    public var kid: String
    public var alg = "ES256"
    public var use = "sig"

    init(x: [UInt8], y: [UInt8]) {
        self.x = Base64URL.encode(x)
        self.y = Base64URL.encode(y)
        kid = Self.thumbprint(x: self.x, y: self.y)
    }

    /// RFC 7638 §3: SHA-256 of the required members in lexicographic order, without whitespace.
    static func thumbprint(x: String, y: String) -> String {
        Base64URL.encode(Digest.sha256(Array(#"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#.utf8)))
    }
}

/// The key set served at `/.well-known/jwks.json` (RFC 7517 §5).
public struct JSONWebKeySet: Codable, Sendable, Equatable {
    public var keys: [JSONWebKey]

    public init(keys: [JSONWebKey]) {
        self.keys = keys
    }
}
