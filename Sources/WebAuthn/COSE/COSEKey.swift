/// A credential public key in COSE_Key form (RFC 9053), validated against its algorithm.
public struct COSEKey: Sendable {
    /// COSE key types (`kty`).
    public enum KeyType: Int64, Sendable {
        case okp = 1
        case ec2 = 2
        case rsa = 3
        case akp = 7
    }

    public let keyType: KeyType
    public let algorithm: COSEAlgorithm
    /// The key as OpenSSL holds it.
    public let publicKey: PublicKey
    /// How `algorithm` checks signatures; the key was built to fit it.
    let scheme: SignatureScheme

    /// Parses and validates a decoded COSE_Key map: the key type must fit the algorithm, EC points must
    /// lie on the curve, RSA moduli must be at least 2048 bits and RSA exponents odd and at most 256 bits.
    public init(_ value: CBORValue) throws {
        guard value.mapEntries != nil else {
            throw WebAuthnError(.malformedPublicKey, "credential public key is \(value.kindName), not a map")
        }
        guard let ktyValue = value[intKey: 1]?.int64 else {
            throw WebAuthnError(.malformedPublicKey, "credential public key has no integer kty (1)")
        }
        guard let algValue = value[intKey: 3]?.int64 else {
            throw WebAuthnError(.malformedPublicKey, "credential public key has no integer alg (3)")
        }
        let algorithm = COSEAlgorithm(rawValue: algValue)
        guard let keyType = KeyType(rawValue: ktyValue) else {
            throw WebAuthnError(.unsupportedAlgorithm, "COSE key type \(ktyValue) is not supported")
        }
        guard let scheme = algorithm.signatureScheme else {
            throw WebAuthnError(.unsupportedAlgorithm, "credential algorithm \(algorithm) is not supported: OpenSSL 3.0 cannot verify it")
        }
        self.keyType = keyType
        self.algorithm = algorithm
        self.scheme = scheme
        // A public key with private material comes from a broken or hostile authenticator.
        if let member = Self.privateMembers(of: keyType).first(where: { value[intKey: $0.label] != nil }) {
            throw WebAuthnError(
                .malformedPublicKey,
                "credential public key carries the private key member \(member.name) (\(member.label)); an authenticator must never reveal it")
        }

        switch (keyType, scheme) {
        case (.ec2, .ecdsa(let expectedCurve, _)):
            guard let crv = value[intKey: -1]?.int64, let curve = EllipticCurve(rawValue: crv) else {
                throw WebAuthnError(.malformedPublicKey, "EC2 key has a missing or unknown crv (-1)")
            }
            guard curve == expectedCurve else {
                throw WebAuthnError(.malformedPublicKey, "EC2 key on \(curve.groupName) does not fit \(algorithm.name), which needs \(expectedCurve.groupName)")
            }
            guard let x = value[intKey: -2]?.byteString, let y = value[intKey: -3]?.byteString else {
                throw WebAuthnError(.malformedPublicKey, "EC2 key needs byte-string x (-2) and y (-3) coordinates")
            }
            guard x.count == curve.coordinateLength, y.count == curve.coordinateLength else {
                throw WebAuthnError(.malformedPublicKey, "EC2 coordinates are \(x.count) and \(y.count) bytes; \(curve.groupName) needs \(curve.coordinateLength)")
            }
            publicKey = try .elliptic(curve: curve, x: x, y: y)
        case (.rsa, .rsaPKCS1), (.rsa, .rsaPSS):
            guard let n = value[intKey: -1]?.byteString, let e = value[intKey: -2]?.byteString, !n.isEmpty, !e.isEmpty else {
                throw WebAuthnError(.malformedPublicKey, "RSA key needs byte-string n (-1) and e (-2)")
            }
            // An odd exponent of at most 256 bits (FIPS 186-5; authenticators use 65537): a longer one
            // would make every verification as slow as a private-key operation.
            let exponent = e.drop { $0 == 0 }
            guard let last = exponent.last, last & 1 == 1, exponent.count <= 32, exponent != [1] else {
                throw WebAuthnError(.malformedPublicKey, "RSA public exponent must be odd, above 1 and at most 256 bits (65537 is usual)")
            }
            publicKey = try .rsa(modulus: n, exponent: e)
            guard publicKey.bits >= 2048 else {
                throw WebAuthnError(.malformedPublicKey, "RSA key of \(publicKey.bits) bits is shorter than 2048")
            }
        case (.okp, .edDSA(let fixedCurve)):
            guard let crv = value[intKey: -1]?.int64, let curve = EdwardsCurve(rawValue: crv) else {
                throw WebAuthnError(.malformedPublicKey, "OKP key has a missing or unknown crv (-1)")
            }
            if let fixedCurve, fixedCurve != curve {
                throw WebAuthnError(.malformedPublicKey, "OKP key on curve \(crv) does not fit \(algorithm.name)")
            }
            guard let x = value[intKey: -2]?.byteString, x.count == curve.keyLength else {
                throw WebAuthnError(.malformedPublicKey, "OKP key needs a \(curve.keyLength)-byte x (-2)")
            }
            // OpenSSL verifies under such a key a signature anyone can make, for any message.
            if Self.isSmallOrder(x, on: curve) {
                throw WebAuthnError(
                    .malformedPublicKey, "\(curve == .ed25519 ? "Ed25519" : "Ed448") key is a point of small order, under which anyone can forge signatures")
            }
            publicKey = try .edwards(curve: curve, x: x)
        default:
            throw WebAuthnError(.malformedPublicKey, "COSE key type \(keyType) does not fit algorithm \(algorithm.name)")
        }
    }

    /// The encodings of the eight Ed25519 points of order dividing 8, canonical and not, with the sign
    /// bit (the top bit of the last byte) cleared: libsodium refuses the same.
    static let smallOrderEd25519: Set<[UInt8]> = [
        [UInt8](repeating: 0, count: 32),
        [1] + [UInt8](repeating: 0, count: 31),
        [
            0x26, 0xE8, 0x95, 0x8F, 0xC2, 0xB2, 0x27, 0xB0, 0x45, 0xC3, 0xF4, 0x89, 0xF2, 0xEF, 0x98, 0xF0,
            0xD5, 0xDF, 0xAC, 0x05, 0xD3, 0xC6, 0x33, 0x39, 0xB1, 0x38, 0x02, 0x88, 0x6D, 0x53, 0xFC, 0x05,
        ],
        [
            0xC7, 0x17, 0x6A, 0x70, 0x3D, 0x4D, 0xD8, 0x4F, 0xBA, 0x3C, 0x0B, 0x76, 0x0D, 0x10, 0x67, 0x0F,
            0x2A, 0x20, 0x53, 0xFA, 0x2C, 0x39, 0xCC, 0xC6, 0x4E, 0xC7, 0xFD, 0x77, 0x92, 0xAC, 0x03, 0x7A,
        ],
        [0xEC] + [UInt8](repeating: 0xFF, count: 30) + [0x7F],
        [0xED] + [UInt8](repeating: 0xFF, count: 30) + [0x7F],
        [0xEE] + [UInt8](repeating: 0xFF, count: 30) + [0x7F],
    ]

    /// The encodings of the four Ed448 points of order dividing 4 (y = 0, 1 and p − 1, where
    /// p = 2^448 − 2^224 − 1), and of y = 0 and 1 written non-canonically (p and p + 1), sign bit cleared.
    static let smallOrderEd448: Set<[UInt8]> = {
        let zeros = [UInt8](repeating: 0, count: 28), ones = [UInt8](repeating: 0xFF, count: 27)
        let p = [0xFF] + ones + [0xFE] + ones + [0]
        return [
            zeros + zeros + [0], [1] + zeros.dropFirst() + zeros + [0],
            [0xFE] + p.dropFirst(), p, zeros + [0xFF] + ones + [0],
        ]
    }()

    static func isSmallOrder(_ encoded: [UInt8], on curve: EdwardsCurve) -> Bool {
        var unsigned = encoded
        unsigned[unsigned.count - 1] &= 0x7F
        return (curve == .ed25519 ? smallOrderEd25519 : smallOrderEd448).contains(unsigned)
    }

    /// The private key members of each key type (RFC 9053 §7.1.1, §7.2; RFC 8230 §4), which a
    /// credential public key must not carry.
    static func privateMembers(of keyType: KeyType) -> [(label: Int64, name: String)] {
        switch keyType {
        case .ec2, .okp: [(-4, "d")]
        case .akp: [(-2, "priv")]
        case .rsa:
            [(-3, "d"), (-4, "p"), (-5, "q"), (-6, "dP"), (-7, "dQ"), (-8, "qInv"), (-9, "other"), (-10, "r_i"), (-11, "d_i"), (-12, "t_i")]
        }
    }

    /// Verifies a signature made with this key's own algorithm.
    public func verify(signature: [UInt8], over message: [UInt8]) throws {
        try publicKey.verify(signature: signature, over: message, [], scheme: scheme, algorithm: algorithm)
    }

    /// Verifies a signature over `message ‖ suffix` (authenticator data followed by the client data
    /// hash) without building the joined bytes.
    public func verify(signature: [UInt8], over message: [UInt8], followedBy suffix: [UInt8]) throws {
        try publicKey.verify(signature: signature, over: message, suffix, scheme: scheme, algorithm: algorithm)
    }
}
