import COpenSSL

/// Hash functions, computed by OpenSSL's EVP interface with implementations fetched once.
public enum Digest: String, Sendable {
    case sha1 = "SHA1"
    case sha256 = "SHA256"
    case sha384 = "SHA384"
    case sha512 = "SHA512"

    /// The digest of `bytes`. OpenSSL's one-shot EVP_Digest fails for these built-in digests only
    /// when memory runs out or no provider offers them; that stops the process rather than let an
    /// empty hash reach a comparison.
    public func hash<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        if let digest = bytes.withContiguousStorageIfAvailable({ hash(buffer: UnsafeRawBufferPointer($0)) }) {
            return digest
        }
        return Array(bytes).withUnsafeBytes { hash(buffer: $0) }
    }

    private func hash(buffer input: UnsafeRawBufferPointer) -> [UInt8] {
        guard let fetched else { fatalError("OpenSSL offers no \(rawValue) implementation") }
        return [UInt8](unsafeUninitializedCapacity: Int(EVP_MAX_MD_SIZE)) { output, count in
            var length: UInt32 = 0
            guard EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, fetched.md, nil) == 1 else {
                fatalError("OpenSSL EVP_Digest(\(rawValue)) failed: out of memory")
            }
            count = Int(length)
        }
    }

    /// SHA-256, the hash WebAuthn uses for client data, RP IDs and attestation nonces.
    public static func sha256<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        Digest.sha256.hash(bytes)
    }
}
