import COpenSSL

/// Random bytes from OpenSSL's CSPRNG.
public enum SecureRandom {
    /// `count` random bytes. Throws only when OpenSSL's generator is not seeded.
    public static func bytes(count: Int) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        guard count == 0 || RAND_bytes(&buffer, Int32(count)) == 1 else {
            throw WebAuthnError(.cryptoFailure, "OpenSSL RAND_bytes failed")
        }
        return buffer
    }
}
