import Foundation
import Testing
import WebAuthn
@testable import LatchkeyServer
@testable import LatchkeyService
import LatchkeyStore
import LatchkeyTokens

@Suite("Sign-in tokens")
struct SignInTokenTests {
    @Test func aSignedTokenVerifiesAndATamperedOneDoesNot() throws {
        let key = try TokenSigningKey.generate()
        let claims = IDTokenClaims(
            iss: "https://login.example.com", aud: ["api"], sub: "dXNlcg", preferredUsername: "alice", externalId: nil,
            issuedAt: Date(timeIntervalSince1970: 1_800_000_000), expiresAt: Date(timeIntervalSince1970: 1_800_000_300),
            authenticatedAt: Date(timeIntervalSince1970: 1_800_000_000), amr: ["pop"], credentialID: "Y3JlZA", jwtID: "abc")
        let token = try JSONWebToken.sign(claims, with: key)
        let keys = [try Self.dictionary(key.publicKey)]
        let (header, read) = try SignInTokenChecks.verify(token, with: keys)
        #expect(header["kid"] as? String == key.keyID)
        #expect(header["typ"] as? String == "JWT")
        #expect(read["aud"] as? String == "api", "one audience is a string")
        #expect(read["exp"] as? Int == 1_800_000_300)
        #expect(read["ext_id"] == nil, "no externalId, no ext_id")
        #expect(read["preferred_username"] as? String == "alice")

        var parts = token.split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(Array(#"{"sub":"mallory"}"#.utf8))
        #expect(throws: (any Error).self) { try SignInTokenChecks.verify(parts.joined(separator: "."), with: keys) }
        let other = try TokenSigningKey.generate()
        #expect(throws: (any Error).self) {
            var foreign = try Self.dictionary(other.publicKey)
            foreign["kid"] = key.keyID
            _ = try SignInTokenChecks.verify(token, with: [foreign])
        }
    }

    @Test func aKeySurvivesTheStoreAndKeepsItsID() throws {
        let key = try TokenSigningKey.generate()
        let again = try TokenSigningKey(pem: try key.pem())
        #expect(again.publicKey == key.publicKey)
        #expect(key.keyID.count == 43, "a SHA-256 thumbprint in base64url")
        #expect(throws: TokenError.self) { try TokenSigningKey(pem: Array("not a key".utf8)) }
    }

    @Test func severalAudiencesAreAnArrayAndMethodsFollowUserVerification() throws {
        #expect(IDTokenClaims.methods(userVerified: true) == ["pop", "user", "mfa"])
        #expect(IDTokenClaims.methods(userVerified: false) == ["pop"])
        let claims = IDTokenClaims(
            iss: "i", aud: ["a", "b"], sub: "s", preferredUsername: "p", externalId: "crm-1", issuedAt: Date(), expiresAt: Date(),
            authenticatedAt: Date(), amr: ["pop"], credentialID: "c", jwtID: "j")
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(claims)) as? [String: Any] ?? [:]
        #expect(json["aud"] as? [String] == ["a", "b"])
        #expect(json["ext_id"] as? String == "crm-1")
    }

    @Test func aRotatedInKeyIsPublishedBeforeItSignsAndTheOldOneUntilItsTokensHaveExpired() throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let first = try TokenSigningKey.generate()
        let second = try TokenSigningKey.generate()
        let records = [
            SigningKeyRecord(generation: 1, keyID: first.keyID, privateKey: try first.pem(), createdAt: start),
            SigningKeyRecord(
                generation: 2, keyID: second.keyID, privateKey: try second.pem(), createdAt: start.addingTimeInterval(1_000),
                signsFrom: start.addingTimeInterval(1_300)),
        ]
        let ring = try SigningKeyRing(records, reusing: nil)
        let waiting = start.addingTimeInterval(1_100)
        #expect(ring.signingKey(at: waiting).keyID == first.keyID, "the new key waits for its time")
        #expect(ring.published(now: waiting, overlap: 300).map(\.kid) == [second.keyID, first.keyID], "but is published at once")
        let after = start.addingTimeInterval(1_300)
        #expect(ring.signingKey(at: after).keyID == second.keyID)
        #expect(ring.published(now: start.addingTimeInterval(1_599), overlap: 300).map(\.kid) == [second.keyID, first.keyID])
        #expect(ring.published(now: start.addingTimeInterval(1_600), overlap: 300).map(\.kid) == [second.keyID], "gone once its tokens expired")
        #expect(throws: StoreError.self) { try SigningKeyRing([], reusing: nil) }
    }

    static func dictionary(_ key: JSONWebKey) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: JSONEncoder().encode(key)) as? [String: Any] ?? [:]
    }
}
