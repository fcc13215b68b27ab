import Testing
import WebAuthn

/// The sign-in fast path: parsed keys kept by credential ID, and client data parsed by the caller.
/// It must give every sign-in the verdict the plain entry point gives, and never use a stale key.
@Suite("Credential key cache")
struct CredentialKeyCacheTests {
    static let es256 = ConformanceVector.named("w3c-packed-es256-auth")!
    static let eddsa = ConformanceVector.named("w3c-packed-eddsa-auth")!

    static func verifier(_ vector: ConformanceVector, cache: CredentialKeyCache) -> SignInVerifier {
        SignInVerifier(relyingParty: vector.relyingParty(), keyCache: cache)
    }

    /// The error code of a sign-in, or nil when it passed.
    static func verdict(_ body: () throws -> Void) -> WebAuthnError.Code? {
        do {
            try body()
            return nil
        } catch let error as WebAuthnError {
            return error.code
        } catch {
            Issue.record("unexpected error type: \(error)")
            return nil
        }
    }

    @Test func aSecondSignInUsesTheCachedKey() throws {
        let cache = CredentialKeyCache()
        let verifier = Self.verifier(Self.es256, cache: cache)
        _ = try verifier.verify(Self.es256.authenticationResponse, expecting: Self.es256.authenticationExpectation)
        #expect(cache.count == 1)
        _ = try verifier.verify(Self.es256.authenticationResponse, expecting: Self.es256.authenticationExpectation)
        #expect(cache.count == 1)
    }

    @Test func aKeyStoredUnderTheSameIDIsNeverServedStale() throws {
        let cache = CredentialKeyCache()
        let verifier = Self.verifier(Self.es256, cache: cache)
        let response = Self.es256.authenticationResponse
        var otherKey = Self.es256.authenticationExpectation
        otherKey.publicKey = try #require(Self.eddsa.storedPublicKey)
        // The record now holds another key: the cached ES256 key must not verify for it.
        _ = try verifier.verify(response, expecting: Self.es256.authenticationExpectation)
        let refused = #expect(throws: WebAuthnError.self) { try verifier.verify(response, expecting: otherKey) }
        #expect(refused?.code == .invalidSignature)
        // And back: the entry now holds the EdDSA key, which must not answer for the ES256 bytes.
        _ = try verifier.verify(response, expecting: Self.es256.authenticationExpectation)
        #expect(cache.count == 1)
    }

    @Test func invalidateAndRemoveAllForgetKeys() throws {
        let cache = CredentialKeyCache()
        let es256Key = try #require(Self.es256.storedPublicKey)
        let eddsaKey = try #require(Self.eddsa.storedPublicKey)
        _ = try cache.key(for: [1], publicKey: es256Key)
        _ = try cache.key(for: [2], publicKey: eddsaKey)
        #expect(cache.count == 2)
        cache.invalidate(credentialID: [1])
        #expect(cache.count == 1)
        cache.invalidate(credentialID: [9])
        #expect(cache.count == 1)
        cache.removeAll()
        #expect(cache.count == 0)
    }

    @Test func theCacheStaysWithinItsCapacityAndKeepsRecentKeys() throws {
        let cache = CredentialKeyCache(capacity: 8)
        let key = try #require(Self.es256.storedPublicKey)
        for id in 0..<100 {
            _ = try cache.key(for: [UInt8(id)], publicKey: key)
            _ = try cache.key(for: [0], publicKey: key)  // kept in use throughout
            #expect(cache.count <= 8)
        }
        #expect(cache.count >= 2)
        // Credential 0 was used last before every insertion, so it was never dropped: a hit keeps
        // the count, while a miss at capacity would have dropped a quarter of the entries.
        let before = cache.count
        _ = try cache.key(for: [0], publicKey: key)
        #expect(cache.count == before)
    }

    @Test func aKeyThatDoesNotParseIsRefusedAndNotCached() throws {
        let cache = CredentialKeyCache()
        let error = #expect(throws: WebAuthnError.self) { try cache.key(for: [1], publicKey: [0xA0]) }
        #expect(error?.code == .malformedPublicKey)
        #expect(cache.count == 0)
    }

    @Test func concurrentSignInsShareOneCache() async throws {
        let cache = CredentialKeyCache(capacity: 4)
        let vectors = [Self.es256, Self.eddsa]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                let vector = vectors[task % 2]
                group.addTask {
                    let verifier = Self.verifier(vector, cache: cache)
                    for round in 0..<25 {
                        if round % 10 == 9 { cache.invalidate(credentialID: vector.credentialID) }
                        _ = try verifier.verify(vector.authenticationResponse, expecting: vector.authenticationExpectation)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(cache.count <= 2)
    }

    @Test func parsedClientDataMustComeFromTheResponse() throws {
        let verifier = SignInVerifier(relyingParty: Self.es256.relyingParty())
        let response = Self.es256.authenticationResponse
        let own = try CollectedClientData(response.clientDataJSON)
        _ = try verifier.verify(response, clientData: own, expecting: Self.es256.authenticationExpectation)
        let foreign = try CollectedClientData(Self.eddsa.clientDataJSON)
        let error = #expect(throws: WebAuthnError.self) {
            try verifier.verify(response, clientData: foreign, expecting: Self.es256.authenticationExpectation)
        }
        #expect(error?.code == .malformedClientData)
    }

    @Test("every sign-in vector gets the same verdict on the fast path",
          arguments: ConformanceVector.all().filter { !$0.isRegistration })
    func fastPathVerdictsMatch(_ vector: ConformanceVector) {
        let crossOrigin: CrossOriginPolicy = ConformanceVectorTests.isCrossOrigin(vector)
            ? .allow(topOrigins: ["https://example.com"]) : .forbid
        let relyingParty = vector.relyingParty(crossOrigin: crossOrigin)
        let cache = CredentialKeyCache()
        let plain = Self.verdict {
            _ = try SignInVerifier(relyingParty: relyingParty)
                .verify(vector.authenticationResponse, expecting: vector.authenticationExpectation)
        }
        for _ in 0..<2 {  // a miss, then a hit
            let fast = Self.verdict {
                let clientData = try CollectedClientData(vector.clientDataJSON)
                _ = try SignInVerifier(relyingParty: relyingParty, keyCache: cache)
                    .verify(vector.authenticationResponse, clientData: clientData, expecting: vector.authenticationExpectation)
            }
            #expect(fast == plain, "\(vector.name)")
        }
    }
}
