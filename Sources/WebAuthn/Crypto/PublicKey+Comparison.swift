import COpenSSL

extension PublicKey {
    /// Whether `other` is the same public key (same type, parameters and public value), as
    /// OpenSSL's EVP_PKEY_eq compares them.
    public func isSameKey(as other: PublicKey) -> Bool {
        EVP_PKEY_eq(key, other.key) == 1
    }

    /// Whether this is an EC key on P-256 (prime256v1).
    var isP256: Bool {
        typeName == "EC" && ellipticGroupName == EllipticCurve.p256.canonicalGroupName
    }
}
