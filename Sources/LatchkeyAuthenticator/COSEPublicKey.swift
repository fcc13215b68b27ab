import WebAuthn

/// Encodes a credential public key as a COSE_Key (RFC 9052 §7, RFC 9053) with the map keys in
/// CTAP2 canonical order: kty (1), alg (3), then the key type's parameters (-1, -2, -3).
enum COSEPublicKey {
    static func encode(_ parts: PublicKeyParts, algorithm: COSEAlgorithm) -> [UInt8] {
        var entries: [CBORMapEntry]
        switch parts {
        case .ec2(let curve, let x, let y):
            entries = [entry(1, .integer(2)), entry(3, .integer(algorithm.rawValue)),
                       entry(-1, .integer(curve)), entry(-2, .bytes(x)), entry(-3, .bytes(y))]
        case .okp(let curve, let x):
            entries = [entry(1, .integer(1)), entry(3, .integer(algorithm.rawValue)),
                       entry(-1, .integer(curve)), entry(-2, .bytes(x))]
        case .rsa(let n, let e):
            entries = [entry(1, .integer(3)), entry(3, .integer(algorithm.rawValue)),
                       entry(-1, .bytes(n)), entry(-2, .bytes(e))]
        }
        return CBOREncoder.encode(.map(entries))
    }

    private static func entry(_ label: Int64, _ value: CBORValue) -> CBORMapEntry {
        CBORMapEntry(key: .integer(label), value: value)
    }
}

extension CBORValue {
    /// A CBOR integer of either sign.
    static func integer(_ value: Int64) -> CBORValue {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }
}
