import COpenSSL

/// HMAC (RFC 2104), computed by OpenSSL's EVP_MAC interface.
public enum HMAC {
    /// HMAC-SHA-256 of `message` under `key`: 32 bytes.
    public static func sha256(key: [UInt8], message: [UInt8]) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var length = 0
        // An empty key still needs a valid pointer; its length stays 0.
        let keyLength = key.count
        let keyStorage = key.isEmpty ? [0] : key
        let status = keyStorage.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                output.withUnsafeMutableBytes { outputBytes in
                    EVP_Q_mac(
                        nil, "HMAC", nil, "SHA256", nil, keyBytes.baseAddress, keyLength,
                        messageBytes.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) }, message.count,
                        outputBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), 32, &length)
                }
            }
        }
        guard status != nil, length == 32 else {
            throw WebAuthnError(.cryptoFailure, "OpenSSL HMAC-SHA-256 failed")
        }
        return output
    }
}
