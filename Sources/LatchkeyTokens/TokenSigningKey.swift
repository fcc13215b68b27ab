import CLatchkeyShims
import COpenSSL
import WebAuthn

/// A P-256 key pair that signs tokens with ES256 (ECDSA with SHA-256, RFC 7518 §3.4), held by
/// OpenSSL. This value owns the `EVP_PKEY` and frees it.
public final class TokenSigningKey: @unchecked Sendable {
    // Unchecked: the key is never changed after it is made, and OpenSSL allows concurrent signing
    // with one EVP_PKEY (each signature has its own EVP_MD_CTX).
    private let key: OpaquePointer
    /// The public key as a JWK.
    public let publicKey: JSONWebKey
    /// The first part of every token this key signs: the base64url JOSE header naming it.
    let encodedHeader: String

    private init(key: OpaquePointer) throws {
        self.key = key
        publicKey = try Self.publicJWK(of: key)
        encodedHeader = try JSONWebToken.encodedHeader(keyID: publicKey.kid)
    }

    deinit { lkk_free_key(key) }

    /// The key ID tokens name: the RFC 7638 thumbprint of the public key.
    public var keyID: String { publicKey.kid }

    /// A fresh key pair from OpenSSL's generator.
    public static func generate() throws -> TokenSigningKey {
        guard let key = lkk_generate_ec_key("P-256") else { throw TokenError("OpenSSL could not generate a P-256 key pair") }
        return try TokenSigningKey(key: key)
    }

    /// The key in an unencrypted PEM text, which must be a P-256 private key.
    public convenience init(pem: [UInt8]) throws {
        guard let key = lkk_private_key_from_pem(pem, pem.count) else {
            throw TokenError("the signing key is not an unencrypted PEM private key")
        }
        guard EVP_PKEY_is_a(key, "EC") == 1, EVP_PKEY_get_bits(key) == 256 else {
            lkk_free_key(key)
            throw TokenError("the signing key is not a P-256 key")
        }
        try self.init(key: key)
    }

    /// The private key as unencrypted PKCS#8 PEM, to keep in the store.
    public func pem() throws -> [UInt8] {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = lkk_private_key_pem(key, &buffer, buffer.count)
        guard length > 0 else { throw TokenError("OpenSSL could not export the signing key") }
        return buffer.prefix(length).map { UInt8(bitPattern: $0) }
    }

    /// The ES256 signature of `message`: `r ‖ s`, 32 bytes each, as JWS carries it.
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: 80)
        let length = lkk_sign(key, "SHA256", 0, message, message.count, &signature, signature.count)
        guard length > 0 else { throw TokenError("OpenSSL could not sign with the signing key") }
        do {
            return try ECDSASignature.raw(fromDER: Array(signature.prefix(length)), coordinateLength: 32)
        } catch let error as WebAuthnError {
            throw TokenError("OpenSSL returned an ECDSA signature that cannot be used: \(error.message)")
        }
    }

    /// The uncompressed point at the end of the SubjectPublicKeyInfo, as a JWK.
    private static func publicJWK(of key: OpaquePointer) throws -> JSONWebKey {
        var buffer = [UInt8](repeating: 0, count: 256)
        let length = lkk_public_key_der(key, &buffer, buffer.count)
        // A P-256 SubjectPublicKeyInfo is 91 bytes and ends with 0x04 ‖ x ‖ y.
        guard length == 91, buffer[length - 65] == 0x04 else {
            throw TokenError("the signing key's public key is not an uncompressed P-256 point")
        }
        let x = Array(buffer[(length - 64)..<(length - 32)])
        let y = Array(buffer[(length - 32)..<length])
        return JSONWebKey(x: x, y: y)
    }
}
