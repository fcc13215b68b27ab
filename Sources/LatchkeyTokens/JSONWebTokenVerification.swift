import LatchkeyJSON
import WebAuthn

/// A token whose signature verified: the key that made it and its claims as sent (JSON), which the caller decodes
/// and checks (issuer, audience, times) for its own purpose.
public struct VerifiedToken: Sendable {
    /// The `kid` of the key that signed it.
    public let keyID: String
    /// The claims' JSON bytes.
    public let claims: [UInt8]
}

extension JSONWebToken {
    /// The JOSE header a token is read with: only what picks and checks the key.
    private struct ReadHeader: Decodable {
        let alg: String
        let kid: String
    }

    /// Checks that `token` is a compact JWS (RFC 7515 §7.1) with an ES256 header naming a key of `keys`, and that
    /// the key signed it; throws ``TokenError`` saying what failed otherwise. The claims are not checked.
    public static func verify(_ token: String, keys: [JSONWebKey]) throws(TokenError) -> VerifiedToken {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(String(parts[0])),
              let claims = Base64URL.decode(String(parts[1])), let signature = Base64URL.decode(String(parts[2]))
        else { throw TokenError("the token is not three base64url parts") }
        let header: ReadHeader
        do {
            header = try headerBytes.withUnsafeBytes { try StrictJSONDecoder.decode(ReadHeader.self, from: $0) }
        } catch {
            throw TokenError("the token's header is not a JOSE header with alg and kid")
        }
        guard header.alg == "ES256" else { throw TokenError("the token is signed with \(header.alg.prefix(20).debugDescription), not ES256") }
        guard let key = keys.first(where: { $0.kid == header.kid }) else { throw TokenError("no key of the set has the token's kid") }
        guard signature.count == 64 else { throw TokenError("an ES256 signature is 64 bytes, not \(signature.count)") }
        do {
            try key.coseKey().verify(
                signature: try ECDSASignature.der(fromRaw: signature, coordinateLength: 32), over: Array((parts[0] + "." + parts[1]).utf8))
        } catch {
            throw TokenError("the token's signature does not verify with its key")
        }
        return VerifiedToken(keyID: key.kid, claims: claims)
    }
}

extension JSONWebKey {
    /// The key as COSE (RFC 9053 §7.1.1, EC2 on P-256 for ES256), which the core verifies signatures with.
    func coseKey() throws -> COSEKey {
        guard let x = Base64URL.decode(x), let y = Base64URL.decode(y), x.count == 32, y.count == 32 else {
            throw TokenError("the key's coordinates are not 32 bytes of base64url each")
        }
        return try COSEKey(.map([
            CBORMapEntry(key: .unsigned(1), value: .unsigned(2)), CBORMapEntry(key: .unsigned(3), value: .negative(6)),
            CBORMapEntry(key: .negative(0), value: .unsigned(1)), CBORMapEntry(key: .negative(1), value: .bytes(x)),
            CBORMapEntry(key: .negative(2), value: .bytes(y)),
        ]))
    }
}
