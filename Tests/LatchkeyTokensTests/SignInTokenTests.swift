import Foundation
import LatchkeyTokens
import Testing
import WebAuthn

/// Tokens signed, read back and refused: the compact ES256 JWS, its header and claims, the key's PEM and JWK.
/// (The end-to-end tests verify the same tokens with PyJWT, an implementation of their own.)
@Suite("Sign-in tokens")
struct SignInTokenTests {
    static let claims = IDTokenClaims(
        iss: "https://login.example.com", aud: ["api"], sub: "dXNlcg", preferredUsername: "alice", externalId: nil,
        issuedAt: Date(timeIntervalSince1970: 1_800_000_000), expiresAt: Date(timeIntervalSince1970: 1_800_000_300),
        authenticatedAt: Date(timeIntervalSince1970: 1_799_999_990), amr: ["pop"], credentialID: "Y3JlZA", jwtID: "abc")

    static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    static func part(_ token: String, _ index: Int) throws -> [UInt8] {
        try #require(Base64URL.decode(String(token.split(separator: ".", omittingEmptySubsequences: false)[index])))
    }

    @Test func aSignedTokenVerifiesWithItsKeyAndSaysWhatItClaims() throws {
        let key = try TokenSigningKey.generate()
        let token = try JSONWebToken.sign(Self.claims, with: key)
        let verified = try JSONWebToken.verify(token, keys: [try TokenSigningKey.generate().publicKey, key.publicKey])
        #expect(verified.keyID == key.keyID)
        let header = try Self.object(try Self.part(token, 0))
        #expect(header["alg"] as? String == "ES256" && header["typ"] as? String == "JWT" && header["kid"] as? String == key.keyID)
        let claims = try Self.object(verified.claims)
        #expect(claims["iss"] as? String == "https://login.example.com")
        #expect(claims["aud"] as? String == "api", "one audience is a string")
        #expect(claims["sub"] as? String == "dXNlcg" && claims["preferred_username"] as? String == "alice")
        #expect(claims["iat"] as? Int == 1_800_000_000 && claims["exp"] as? Int == 1_800_000_300, "times are whole seconds")
        #expect(claims["auth_time"] as? Int == 1_799_999_990)
        #expect(claims["amr"] as? [String] == ["pop"] && claims["jti"] as? String == "abc")
        #expect(claims["ext_id"] == nil, "no externalId, no ext_id")
        #expect(try Self.part(token, 2).count == 64, "the signature is r ‖ s (RFC 7518 §3.4), not DER")
    }

    @Test func aTamperedForgedOrForeignTokenIsRefused() throws {
        let key = try TokenSigningKey.generate()
        let token = try JSONWebToken.sign(Self.claims, with: key)
        var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        func refused(_ candidate: String, keys: [JSONWebKey] = [key.publicKey], _ comment: Comment) {
            #expect(throws: TokenError.self, comment) { try JSONWebToken.verify(candidate, keys: keys) }
        }
        let claims = parts[1]
        parts[1] = Base64URL.encode(Array(#"{"sub":"mallory"}"#.utf8))
        refused(parts.joined(separator: "."), "other claims under the same signature")
        parts[1] = claims
        parts[0] = Base64URL.encode(Array(#"{"alg":"none","kid":"\#(key.keyID)"}"#.utf8))
        refused(parts[0] + "." + parts[1] + ".", "alg none, unsigned")
        refused(parts.joined(separator: "."), "alg none with a signature")
        parts[0] = Base64URL.encode(Array(#"{"alg":"ES256","kid":"\#(key.keyID)","kid":"other"}"#.utf8))
        refused(parts.joined(separator: "."), "a header naming kid twice")
        var foreign = try TokenSigningKey.generate().publicKey
        foreign.kid = key.keyID
        refused(token, keys: [foreign], "another key under the token's kid")
        refused(token, keys: [try TokenSigningKey.generate().publicKey], "no key with the token's kid")
        refused(String(token.dropLast(2)), "a signature cut short")
        refused(token + ".", "four parts")
    }

    /// A key made by OpenSSL's command line; its RFC 7638 thumbprint computed apart (Python's hashlib over the
    /// canonical JSON of the coordinates `openssl ec -text` printed).
    static let fixedKey = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgSPZd3I7huUO7F44V
        BWjTrRwpfjb1mp5Use3blICz+X6hRANCAARnz8wmBzWt8SixzFSqgI7rHTYpGpOb
        9Obd8zesmxzF47C/3rzbYY5oqiGtILCmSpA5nCWt7/8OyR42QimJ7RNN
        -----END PRIVATE KEY-----
        """

    @Test func aKeyIsReadFromPEMAndNamedByItsThumbprint() throws {
        let key = try TokenSigningKey(pem: Array(Self.fixedKey.utf8))
        #expect(key.publicKey.x == "Z8_MJgc1rfEoscxUqoCO6x02KRqTm_Tm3fM3rJscxeM")
        #expect(key.publicKey.y == "sL_evNthjmiqIa0gsKZKkDmcJa3v_w7JHjZCKYntE00")
        #expect(key.keyID == "7ifDWZzpTKHNePTGOHv11kL15CYjaPRDL8Q7Lx5JLAc")
        let again = try TokenSigningKey(pem: try key.pem())
        #expect(again.publicKey == key.publicKey, "a key survives the store")
        #expect(throws: TokenError.self) { try TokenSigningKey(pem: Array("not a key".utf8)) }
    }

    @Test func theKeySetIsJSONWebKeys() throws {
        let keys = [try TokenSigningKey.generate().publicKey, try TokenSigningKey.generate().publicKey]
        let set = try Self.object(Array(try JSONEncoder().encode(JSONWebKeySet(keys: keys))))
        let members = try #require(set["keys"] as? [[String: Any]])
        #expect(members.count == 2)
        for (member, key) in zip(members, keys) {
            #expect(member["kty"] as? String == "EC" && member["crv"] as? String == "P-256")
            #expect(member["alg"] as? String == "ES256" && member["use"] as? String == "sig")
            #expect(member["kid"] as? String == key.kid)
            #expect(Base64URL.decode(member["x"] as? String ?? "")?.count == 32 && Base64URL.decode(member["y"] as? String ?? "")?.count == 32)
            #expect(member["d"] == nil, "never the private part")
        }
    }

    @Test func severalAudiencesAreAnArrayAndMethodsFollowUserVerification() throws {
        #expect(IDTokenClaims.methods(userVerified: true) == ["pop", "user", "mfa"])
        #expect(IDTokenClaims.methods(userVerified: false) == ["pop"])
        var claims = Self.claims
        claims.aud = ["a", "b"]
        claims.externalId = "crm-1"
        let key = try TokenSigningKey.generate()
        let read = try Self.object(try JSONWebToken.verify(try JSONWebToken.sign(claims, with: key), keys: [key.publicKey]).claims)
        #expect(read["aud"] as? [String] == ["a", "b"])
        #expect(read["ext_id"] as? String == "crm-1")
    }
}
