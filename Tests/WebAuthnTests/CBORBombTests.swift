import Foundation
import Testing
import WebAuthn

/// "CBOR bombs": a few bytes whose head declares an array, map or string of billions of entries.
/// libcbor's `cbor_load` allocates what a head declares, so the bounded pre-scan must refuse each one
/// before libcbor sees it: fast, with the scanner's own message (naming the declared size), never
/// libcbor's, and never an allocation the size of the declaration.
@Suite("CBOR bombs")
struct CBORBombTests {
    struct Bomb: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        /// What the refusal must say: proof that the pre-scan, not libcbor, refused it.
        let reason: String
        var testDescription: String { name }
    }

    static let bombs: [Bomb] = [
        Bomb(name: "array, 8-byte count cut short (9b ff ff ff ff)", bytes: [0x9B, 0xFF, 0xFF, 0xFF, 0xFF], reason: "ends inside an item header"),
        Bomb(name: "map, 8-byte count cut short (bb ff ff ff ff)", bytes: [0xBB, 0xFF, 0xFF, 0xFF, 0xFF], reason: "ends inside an item header"),
        Bomb(name: "bytes, 8-byte length cut short (5b ff ff ff ff)", bytes: [0x5B, 0xFF, 0xFF, 0xFF, 0xFF], reason: "ends inside an item header"),
        Bomb(name: "array of 2^32-1 (9a ff ff ff ff)", bytes: [0x9A, 0xFF, 0xFF, 0xFF, 0xFF], reason: "declares 4294967295 entries"),
        Bomb(name: "map of 2^32-1 (ba ff ff ff ff)", bytes: [0xBA, 0xFF, 0xFF, 0xFF, 0xFF], reason: "declares 4294967295 entries"),
        Bomb(name: "bytes of 2^32-1 (5a ff ff ff ff)", bytes: [0x5A, 0xFF, 0xFF, 0xFF, 0xFF], reason: "declares 4294967295 bytes"),
        Bomb(name: "text of 2^32-1 (7a ff ff ff ff)", bytes: [0x7A, 0xFF, 0xFF, 0xFF, 0xFF], reason: "declares 4294967295 bytes"),
        Bomb(name: "array of 2^64-1", bytes: [0x9B] + [UInt8](repeating: 0xFF, count: 8), reason: "declares 18446744073709551615 entries"),
        Bomb(name: "map of 2^64-1 (twice that many items overflows)", bytes: [0xBB] + [UInt8](repeating: 0xFF, count: 8), reason: "declares 18446744073709551615 entries"),
        Bomb(name: "map of 2^63 (exactly 2^64 items)", bytes: [0xBB, 0x80] + [UInt8](repeating: 0, count: 7), reason: "declares 9223372036854775808 entries"),
        Bomb(name: "bytes of 2^64-1", bytes: [0x5B] + [UInt8](repeating: 0xFF, count: 8), reason: "declares 18446744073709551615 bytes"),
        Bomb(name: "text of 2^64-1", bytes: [0x7B] + [UInt8](repeating: 0xFF, count: 8), reason: "declares 18446744073709551615 bytes"),
        Bomb(name: "array of 2^32 inside a map inside an array", bytes: [0x81, 0xA1, 0x01, 0x9B, 0, 0, 0, 1, 0, 0, 0, 0], reason: "declares 4294967296 entries"),
        Bomb(name: "tagged byte string of 2^32-1", bytes: [0xD8, 0x18, 0x5A, 0xFF, 0xFF, 0xFF, 0xFF], reason: "declares 4294967295 bytes"),
    ]

    @Test("refused by the pre-scan, fast", arguments: bombs)
    func refusedByThePreScan(_ bomb: Bomb) {
        let start = ContinuousClock.now
        let error = #expect(throws: WebAuthnError.self) { try CBORDecoder().decode(bomb.bytes) }
        #expect(ContinuousClock.now - start < .milliseconds(100), "a bomb must be refused without work proportional to its declared size")
        #expect(error?.code == .malformedCBOR)
        #expect(error?.message.contains(bomb.reason) == true, "expected the pre-scan's refusal (\(bomb.reason)); got: \(error?.message ?? "no error")")
    }

    @Test("refused where the core decodes attacker CBOR", arguments: bombs)
    func refusedInEveryEntryPoint(_ bomb: Bomb) {
        // As the whole attestation object.
        let object = #expect(throws: WebAuthnError.self) { try AttestationObject(bomb.bytes) }
        #expect(object?.code == .malformedCBOR)
        // As the credential public key inside authenticator data (AT set, 1-byte credential ID).
        let authenticatorData = [UInt8](repeating: 0, count: 32) + [0x41, 0, 0, 0, 1]
            + [UInt8](repeating: 0, count: 16) + [0, 1, 0xAA] + bomb.bytes
        let parsed = #expect(throws: WebAuthnError.self) { try AuthenticatorData(authenticatorData) }
        #expect(parsed?.code == .malformedCBOR)
        // As the extension outputs (ED set).
        let extensions = #expect(throws: WebAuthnError.self) {
            try AuthenticatorData([UInt8](repeating: 0, count: 32) + [0x81, 0, 0, 0, 1] + bomb.bytes)
        }
        #expect(extensions?.code == .malformedCBOR)
    }
}
