import COpenSSL

/// Hash functions, computed by OpenSSL's EVP interface.
public enum Digest: String, Sendable {
    case sha1 = "SHA1"
    case sha256 = "SHA256"
    case sha384 = "SHA384"
    case sha512 = "SHA512"

    /// The digest of `bytes`. OpenSSL's one-shot EVP_Digest fails for these built-in digests only
    /// when memory runs out; that stops the process rather than let an empty hash reach a comparison.
    public func hash<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let status = Array(bytes).withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &output, &length, evpMessageDigest, nil)
        }
        guard status == 1 else { fatalError("OpenSSL EVP_Digest(\(rawValue)) failed: out of memory") }
        return Array(output.prefix(Int(length)))
    }

    var evpMessageDigest: OpaquePointer? {
        switch self {
        case .sha1: return EVP_sha1()
        case .sha256: return EVP_sha256()
        case .sha384: return EVP_sha384()
        case .sha512: return EVP_sha512()
        }
    }

    /// SHA-256, the hash WebAuthn uses for client data, RP IDs and attestation nonces.
    public static func sha256<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        Digest.sha256.hash(bytes)
    }
}
