import Testing
@testable import WebAuthn

@Suite("COSE keys")
struct COSEKeyTests {
    /// A real P-256 credential key from the vector swa-auth-es256.
    static let p256Key = Base64URL.decode("pQECAyYgASFYIIheFp-u6GvFT2LNGovf3ZrT0iFVBsA_76rRysxRG9A1Ilgg8WGeA6hPmnab0HAViUYVRkwTNcN77QBf_RR0dv3lIvQ")!

    /// The entries of ``p256Key``.
    static var p256Entries: [CBORMapEntry] { ((try? CBORDecoder().decode(p256Key))?.mapEntries) ?? [] }

    func key(replacing label: Int64, with value: CBORValue) throws -> CBORValue {
        let original = try CBORDecoder().decode(Self.p256Key)
        let entries = original.mapEntries!.map { entry in
            entry.key.int64 == label ? CBORMapEntry(key: entry.key, value: value) : entry
        }
        return .map(entries)
    }

    @Test func realP256KeyParses() throws {
        let key = try COSEKey(CBORDecoder().decode(Self.p256Key))
        #expect(key.algorithm == .es256)
        #expect(key.keyType == .ec2)
    }

    @Test func offCurvePointIsRefused() throws {
        var y = try CBORDecoder().decode(Self.p256Key)[intKey: -3]!.byteString!
        y[31] ^= 0x01
        let error = #expect(throws: WebAuthnError.self) { try COSEKey(key(replacing: -3, with: .bytes(y))) }
        #expect(error?.code == .malformedPublicKey)
    }

    @Test func curveMustFitAlgorithm() throws {
        let error = #expect(throws: WebAuthnError.self) { try COSEKey(key(replacing: 3, with: .negative(34))) }  // ES384 on P-256
        #expect(error?.code == .malformedPublicKey)
    }

    @Test func keyTypeMustFitAlgorithm() throws {
        let error = #expect(throws: WebAuthnError.self) { try COSEKey(key(replacing: 3, with: .negative(256))) }  // RS256 on EC2
        #expect(error?.code == .malformedPublicKey)
    }

    @Test(arguments: [
        // EC2 with d; OKP (Ed25519) with d; RSA with each private member.
        CBORValue.map(COSEKeyTests.p256Entries + [CBORMapEntry(key: .negative(3), value: .bytes(Array(repeating: 7, count: 32)))]),
        .map([
            CBORMapEntry(key: .unsigned(1), value: .unsigned(1)), CBORMapEntry(key: .unsigned(3), value: .negative(52)),
            CBORMapEntry(key: .negative(0), value: .unsigned(6)), CBORMapEntry(key: .negative(1), value: .bytes(Array(repeating: 1, count: 32))),
            CBORMapEntry(key: .negative(3), value: .bytes(Array(repeating: 2, count: 32))),
        ]),
    ] + (2...11).map { member in
        CBORValue.map([
            CBORMapEntry(key: .unsigned(1), value: .unsigned(3)), CBORMapEntry(key: .unsigned(3), value: .negative(256)),
            CBORMapEntry(key: .negative(0), value: .bytes([0xC0] + Array(repeating: 1, count: 255))),
            CBORMapEntry(key: .negative(1), value: .bytes([1, 0, 1])), CBORMapEntry(key: .negative(UInt64(member)), value: .bytes([5])),
        ])
    })
    func aPublicKeyWithPrivateMembersIsRefused(_ value: CBORValue) throws {
        let error = #expect(throws: WebAuthnError.self) { try COSEKey(value) }
        #expect(error?.code == .malformedPublicKey)
        #expect(error?.message.contains("carries the private key member") == true, "\(error?.message ?? "")")
    }

    /// A 2048-bit RS256 key with public exponent `e`.
    static func rsaKey(exponent e: [UInt8]) -> CBORValue {
        .map([
            CBORMapEntry(key: .unsigned(1), value: .unsigned(3)), CBORMapEntry(key: .unsigned(3), value: .negative(256)),
            CBORMapEntry(key: .negative(0), value: .bytes([0xC0] + Array(repeating: 1, count: 255))),
            CBORMapEntry(key: .negative(1), value: .bytes(e)),
        ])
    }

    /// An exponent longer than 256 bits would make each verification cost what a private-key operation does.
    @Test func rsaExponentsAreOddAndShort() throws {
        for good in [[1, 0, 1], [3], [0, 0, 1, 0, 1], [0x80] + Array(repeating: 0, count: 30) + [1]] as [[UInt8]] {
            #expect(try COSEKey(Self.rsaKey(exponent: good)).keyType == .rsa, "\(good)")
        }
        for bad in [[1, 0, 0], [1], [0, 1], [1] + Array(repeating: 0, count: 31) + [1], Array(repeating: 0xFF, count: 64)] as [[UInt8]] {
            let error = #expect(throws: WebAuthnError.self) { try COSEKey(Self.rsaKey(exponent: bad)) }
            #expect(error?.message.contains("exponent must be odd") == true, "\(bad)")
        }
    }

    /// An Ed25519 (-19) COSE key with `x`.
    static func ed25519Key(_ x: [UInt8]) -> CBORValue {
        .map([
            CBORMapEntry(key: .unsigned(1), value: .unsigned(1)), CBORMapEntry(key: .unsigned(3), value: .negative(18)),
            CBORMapEntry(key: .negative(0), value: .unsigned(6)), CBORMapEntry(key: .negative(1), value: .bytes(x)),
        ])
    }

    /// Under a point of small order OpenSSL accepts a signature anyone can make (here R = the identity, s = 0)
    /// for any message; every such point, canonical or not, either sign, is refused as a credential key.
    @Test func smallOrderEd25519KeysAreRefused() throws {
        let identity: [UInt8] = [1] + Array(repeating: 0, count: 31)
        try PublicKey.edwards(curve: .ed25519, x: identity)
            .verify(signature: identity + Array(repeating: 0, count: 32), over: Array("any message".utf8), algorithm: .ed25519)
        for point in COSEKey.smallOrderEd25519 {
            for signBit in [UInt8(0), 0x80] {
                var x = point
                x[31] |= signBit
                // Independently of the list: under a point of order at most 8, the forgery verifies for about one
                // message in eight; under any other key, for none.
                let key = try PublicKey.edwards(curve: .ed25519, x: x)
                let forged = (0..<64).contains { index in
                    (try? key.verify(signature: identity + Array(repeating: 0, count: 32), over: Array("m\(index)".utf8), algorithm: .ed25519)) != nil
                }
                #expect(forged, "\(x) is not of small order")
                let error = #expect(throws: WebAuthnError.self) { try COSEKey(Self.ed25519Key(x)) }
                #expect(error?.message.contains("small order") == true, "\(x)")
            }
        }
        #expect(COSEKey.smallOrderEd25519.count == 7)
        // An ordinary key (RFC 8032's first test key) is kept.
        let ordinary: [UInt8] = [
            0xD7, 0x5A, 0x98, 0x01, 0x82, 0xB1, 0x0A, 0xB7, 0xD5, 0x4B, 0xFE, 0xD3, 0xC9, 0x64, 0x07, 0x3A,
            0x0E, 0xE1, 0x72, 0xF3, 0xDA, 0xA6, 0x23, 0x25, 0xAF, 0x02, 0x1A, 0x68, 0xF7, 0x07, 0x51, 0x1A,
        ]
        #expect(try COSEKey(Self.ed25519Key(ordinary)).algorithm == .ed25519)
        let ordinaryKey = try PublicKey.edwards(curve: .ed25519, x: ordinary)
        #expect(!(0..<64).contains { index in
            (try? ordinaryKey.verify(signature: identity + Array(repeating: 0, count: 32), over: Array("m\(index)".utf8), algorithm: .ed25519)) != nil
        })
    }

    static func ed448Key(_ x: [UInt8]) -> CBORValue {
        .map([
            CBORMapEntry(key: .unsigned(1), value: .unsigned(1)), CBORMapEntry(key: .unsigned(3), value: .negative(52)),
            CBORMapEntry(key: .negative(0), value: .unsigned(7)), CBORMapEntry(key: .negative(1), value: .bytes(x)),
        ])
    }

    /// Ed448's points of small order (cofactor 4): y = 0 (x = ±1, order 4), y = 1 (the identity), y = p − 1
    /// (order 2), and y = 0 and 1 written as p and p + 1; computed here in Python's words, not the source's.
    /// OpenSSL accepts the forgery R = (1, 0), s = 0 under both order-4 points, for any message; every listed
    /// point, either sign, is refused as a credential key.
    @Test func smallOrderEd448KeysAreRefused() throws {
        let expected = Set([
            "00" + String(repeating: "00", count: 56),
            "01" + String(repeating: "00", count: 56),
            "fe" + String(repeating: "ff", count: 27) + "fe" + String(repeating: "ff", count: 27) + "00",
            String(repeating: "ff", count: 28) + "fe" + String(repeating: "ff", count: 27) + "00",
            String(repeating: "00", count: 28) + String(repeating: "ff", count: 28) + "00",
        ].map(hexBytes))
        #expect(COSEKey.smallOrderEd448 == expected)
        let orderFour = hexBytes(String(repeating: "00", count: 56) + "80")
        func forges(_ key: PublicKey) -> Bool {
            (0..<64).contains { index in
                (try? key.verify(signature: orderFour + Array(repeating: 0, count: 57), over: Array("m\(index)".utf8), algorithm: .ed448)) != nil
            }
        }
        for point in expected {
            for signBit in [UInt8(0), 0x80] {
                var x = point
                x[56] |= signBit
                if point == expected.first(where: { $0.allSatisfy { $0 == 0 } }) {
                    #expect(forges(try PublicKey.edwards(curve: .ed448, x: x)), "OpenSSL forges under (±1, 0)")
                }
                let error = #expect(throws: WebAuthnError.self) { try COSEKey(Self.ed448Key(x)) }
                #expect(error?.message == "Ed448 key is a point of small order, under which anyone can forge signatures", "\(x)")
            }
        }
        // An ordinary key (RFC 8032's first Ed448 test key) is kept, and nobody forges under it.
        let ordinary = hexBytes(
            "5fd7449b59b461fd2ce787ec616ad46a1da1342485a70e1f8a0ea75d80e96778edf124769b46c7061bd6783df1e50f6cd1fa1abeafe8256180")
        #expect(try COSEKey(Self.ed448Key(ordinary)).algorithm == .ed448)
        #expect(!forges(try PublicKey.edwards(curve: .ed448, x: ordinary)))
    }

    @Test func postQuantumAlgorithmsAreUnsupportedNotCrashing() throws {
        let error = #expect(throws: WebAuthnError.self) { try COSEKey(key(replacing: 3, with: .negative(47))) }  // ML-DSA-44
        #expect(error?.code == .unsupportedAlgorithm)
    }

    @Test func signatureUnderAnotherAlgorithmFamilyIsRefused() throws {
        let key = try COSEKey(CBORDecoder().decode(Self.p256Key))
        let error = #expect(throws: WebAuthnError.self) {
            try key.publicKey.verify(signature: [1, 2, 3], over: [4, 5, 6], algorithm: .rs256)
        }
        #expect(error?.code == .malformedPublicKey)
    }
}
