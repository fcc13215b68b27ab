import Foundation
@testable import LatchkeyService
import LatchkeyStore
import LatchkeyTokens
import Testing

/// The signing keys a service holds: which signs, which the key set publishes, through a rotation.
@Suite("Signing key ring")
struct SigningKeyRingTests {
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
}
