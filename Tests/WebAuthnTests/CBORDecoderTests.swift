import Foundation
import Testing
@testable import WebAuthn

@Suite("Bounded CBOR decoding")
struct CBORDecoderTests {
    let decoder = CBORDecoder()

    func expectRefused(_ bytes: [UInt8], _ comment: Comment) {
        let error = #expect(throws: WebAuthnError.self, comment) { try decoder.decode(bytes) }
        #expect(error?.code == .malformedCBOR, comment)
    }

    @Test func roundTripsEveryKind() throws {
        let value = CBORValue.map([
            CBORMapEntry(key: .text("fmt"), value: .text("none")),
            CBORMapEntry(key: .unsigned(1), value: .array([.negative(6), .bytes([1, 2, 3]), .bool(true), .null])),
            CBORMapEntry(key: .negative(0), value: .tagged(24, .bytes([0xA0]))),
            CBORMapEntry(key: .text("n"), value: .unsigned(1 << 40)),
        ])
        #expect(try decoder.decode(CBOREncoder.encode(value)) == value)
    }

    @Test func hugeDeclaredArrayIsRefusedQuicklyWithoutAllocating() {
        // A 5-byte array head declaring 268 million elements: libcbor would allocate them all.
        let start = Date()
        expectRefused([0x9A, 0x10, 0x00, 0x00, 0x00], "array count larger than the input")
        #expect(Date().timeIntervalSince(start) < 0.1)
        expectRefused([0xBB, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00], "map count larger than the input")
        expectRefused([0x5A, 0xFF, 0xFF, 0xFF, 0xFF, 0x00], "byte string longer than the input")
    }

    @Test func indefiniteLengthsAreRefused() {
        expectRefused([0x9F, 0x01, 0xFF], "indefinite array")
        expectRefused([0x5F, 0x41, 0x00, 0xFF], "indefinite byte string")
        expectRefused([0xBF, 0x01, 0x02, 0xFF], "indefinite map")
        expectRefused([0xFF], "lone break code")
    }

    @Test func duplicateMapKeysAreRefused() {
        expectRefused([0xA2, 0x01, 0x02, 0x01, 0x03], "map with key 1 twice")
        expectRefused([0xA2, 0x61, 0x61, 0x00, 0x61, 0x61, 0x01], "map with key \"a\" twice")
    }

    @Test func nestingDeeperThanSixteenIsRefused() throws {
        let deepest = [UInt8](repeating: 0x81, count: 16) + [0x00]
        #expect(throws: Never.self) { try decoder.decode(deepest) }
        expectRefused([UInt8](repeating: 0x81, count: 17) + [0x00], "17 nested arrays")
        expectRefused([UInt8](repeating: 0x81, count: 100_000), "deeply nested arrays must not overflow the stack")
    }

    @Test func trailingBytesAndTruncationAreRefused() {
        expectRefused([0xA0, 0x00], "a byte after the item")
        expectRefused([0x82, 0x01], "array missing an element")
        expectRefused([0x19, 0x01], "integer head cut short")
        expectRefused([], "empty input")
        expectRefused([0x1C], "reserved additional information")
    }

    @Test func inputsOverTheSizeLimitAreRefused() {
        let big = CBOREncoder.encode(.bytes([UInt8](repeating: 0, count: 64 * 1024)))
        expectRefused(big, "a 64 KiB byte string plus its head")
    }

    /// Found by the `cbor` fuzz target: libcbor 0.8 refuses tag 13 in its one-byte head (0xCD) but
    /// took it in an eight-byte head, so a decoded value did not decode again once re-encoded.
    @Test func tagsSixToTwentyAreRefusedInEveryHeadAndEveryOtherTagRoundTrips() throws {
        for tag: UInt64 in 6...20 {
            expectRefused(CBOREncoder.encode(.tagged(tag, .unsigned(0))), "tag \(tag), shortest head")
            expectRefused([0xDB] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: tag >> UInt64($0 * 8)) } + [0x00],
                          "tag \(tag), eight-byte head")
        }
        for tag: UInt64 in [0, 1, 5, 21, 23, 24, 255, 256, 65_536, 1 << 32, .max] {
            let value = CBORValue.tagged(tag, .text("x"))
            #expect(try decoder.decode(CBOREncoder.encode(value)) == value, "tag \(tag)")
        }
    }

    @Test func textMustBeUTF8() {
        expectRefused([0x62, 0xC3, 0x28], "invalid UTF-8 sequence")
    }
}
