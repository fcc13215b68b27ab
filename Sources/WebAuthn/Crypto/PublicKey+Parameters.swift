import COpenSSL

/// Key parameters read back from OpenSSL, for comparing a key with one described elsewhere
/// (a TPM public area, an attestation certificate).
extension PublicKey {
    /// The RSA modulus `n`, big-endian without leading zero bytes; nil for keys that are not RSA.
    public var rsaModulus: [UInt8]? { bigNumberParameter("n") }

    /// The RSA public exponent `e`, big-endian without leading zero bytes; nil for keys that are not RSA.
    public var rsaPublicExponent: [UInt8]? { bigNumberParameter("e") }

    /// The uncompressed point (`0x04 ‖ x ‖ y`) of an EC key; nil for keys that are not EC.
    public var uncompressedPoint: [UInt8]? {
        guard typeName == "EC" else { return nil }
        var length = 0
        guard EVP_PKEY_get_octet_string_param(key, "encoded-pub-key", nil, 0, &length) == 1, length > 0 else { return nil }
        var point = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_get_octet_string_param(key, "encoded-pub-key", &point, length, &length) == 1 else { return nil }
        return Array(point.prefix(length))
    }

    /// One BIGNUM parameter of the key (OpenSSL parameter names such as "n" and "e").
    private func bigNumberParameter(_ name: String) -> [UInt8]? {
        let type = typeName
        guard type == "RSA" || type == "RSA-PSS" else { return nil }
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key, name, &number) == 1, let number else { return nil }
        defer { BN_free(number) }
        let length = (Int(BN_num_bits(number)) + 7) / 8
        guard length > 0 else { return [0] }
        var bytes = [UInt8](repeating: 0, count: length)
        guard Int(BN_bn2bin(number, &bytes)) == length else { return nil }
        return bytes
    }
}
