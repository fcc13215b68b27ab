import Foundation
import CLatchkeyShims
import COpenSSL

/// A credential's key pair, held by OpenSSL. This value owns the `EVP_PKEY` and frees it.
final class CredentialPrivateKey {
    let algorithm: CredentialAlgorithm
    private let key: OpaquePointer

    private init(algorithm: CredentialAlgorithm, key: OpaquePointer) {
        self.algorithm = algorithm
        self.key = key
    }

    deinit { lkk_free_key(key) }

    /// A fresh key pair for `algorithm` from OpenSSL's generator.
    static func generate(_ algorithm: CredentialAlgorithm) throws -> CredentialPrivateKey {
        let generated: OpaquePointer?
        switch algorithm {
        case .es256: generated = lkk_generate_ec_key("P-256")
        case .es384: generated = lkk_generate_ec_key("P-384")
        case .edDSA: generated = lkk_generate_ed25519_key()
        case .rs256: generated = lkk_generate_rsa_key(2048)
        }
        guard let generated else {
            throw AuthenticatorError(.cryptoFailure, "OpenSSL could not generate a \(algorithm.rawValue) key pair")
        }
        return CredentialPrivateKey(algorithm: algorithm, key: generated)
    }

    /// The key in a PEM text, which must be a key of `algorithm`'s type (and curve).
    init(pem: String, algorithm: CredentialAlgorithm) throws {
        let bytes = Array(pem.utf8)
        guard let parsed = lkk_private_key_from_pem(bytes, bytes.count) else {
            throw AuthenticatorError(.unreadableKeyFile, "privateKey is not an unencrypted PEM private key")
        }
        self.algorithm = algorithm
        self.key = parsed
        guard fits(algorithm) else {
            throw AuthenticatorError(.unreadableKeyFile, "privateKey is not a \(algorithm.rawValue) key")
        }
    }

    /// The unencrypted PKCS#8 PEM text of the private key.
    func pem() throws -> String {
        var buffer = [CChar](repeating: 0, count: 8192)
        let length = lkk_private_key_pem(key, &buffer, buffer.count)
        guard length > 0 else { throw AuthenticatorError(.cryptoFailure, "OpenSSL could not export the \(algorithm.rawValue) private key") }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The DER SubjectPublicKeyInfo of the public key (`response.publicKey` in `toJSON()`).
    func subjectPublicKeyInfo() throws -> [UInt8] {
        try exported("public key") { lkk_public_key_der(key, $0, $1) }
    }

    /// The public key's parts, as a COSE_Key carries them.
    func publicKeyParts() throws -> PublicKeyParts {
        switch algorithm {
        case .es256, .es384:
            // The uncompressed point: 0x04 ‖ x ‖ y.
            let point = try exported("EC point") { buffer, capacity in
                var length = 0
                let fetched = EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, buffer, capacity, &length)
                return fetched == 1 ? length : 0
            }
            let coordinate = (point.count - 1) / 2
            guard point.first == 0x04, point.count == 1 + 2 * coordinate else {
                throw AuthenticatorError(.cryptoFailure, "OpenSSL gave an EC point that is not uncompressed")
            }
            return .ec2(
                curve: algorithm == .es256 ? 1 : 2,
                x: Array(point[1...coordinate]), y: Array(point[(1 + coordinate)...]))
        case .edDSA:
            let x = try exported("Ed25519 public key") { buffer, capacity in
                var length = capacity
                return EVP_PKEY_get_raw_public_key(key, buffer, &length) == 1 ? length : 0
            }
            return .okp(curve: 6, x: x)
        case .rs256:
            var modulus = [UInt8](repeating: 0, count: 1024)
            var exponent = [UInt8](repeating: 0, count: 16)
            var modulusLength = 0
            var exponentLength = 0
            guard lkk_rsa_public_numbers(key, &modulus, modulus.count, &modulusLength, &exponent, exponent.count, &exponentLength) == 1 else {
                throw AuthenticatorError(.cryptoFailure, "OpenSSL could not export the RSA public numbers")
            }
            return .rsa(n: Array(modulus.prefix(modulusLength)), e: Array(exponent.prefix(exponentLength)))
        }
    }

    /// `0x04 ‖ x ‖ y` of a P-256 key, as `SecKeyCopyExternalRepresentation` returns it (device
    /// keys and App Attest keys).
    func uncompressedP256Point() throws -> [UInt8] {
        guard algorithm == .es256, case .ec2(_, let x, let y) = try publicKeyParts() else {
            throw AuthenticatorError(.cryptoFailure, "the key is not a P-256 key")
        }
        return [0x04] + x + y
    }

    /// The signature over `message` as WebAuthn carries it: DER for ECDSA, raw for EdDSA and RSA.
    func sign(_ message: [UInt8]) throws -> [UInt8] {
        try exported("signature") { buffer, capacity in
            lkk_sign(key, algorithm.digestName, 0, message, message.count, buffer, capacity)
        }
    }

    /// An X.509 certificate (DER) for `subject`'s public key, signed with this key: a CA's when
    /// `isCA`, issued by `issuer` (DER) or self-signed, with one extra extension when given.
    func issueCertificate(
        for subject: CredentialPrivateKey, commonName: String, issuer: [UInt8]?, isCA: Bool, serial: Int,
        validity: ClosedRange<Date>, extension custom: (oid: String, value: [UInt8])? = nil
    ) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let value = custom?.value ?? []
        let length = buffer.withUnsafeMutableBufferPointer { output in
            value.withUnsafeBufferPointer { extensionValue in
                lkk_issue_certificate(
                    subject.key, commonName, issuer, issuer?.count ?? 0, key, isCA ? 1 : 0, serial,
                    Int64(validity.lowerBound.timeIntervalSince1970), Int64(validity.upperBound.timeIntervalSince1970),
                    custom?.oid, extensionValue.baseAddress, extensionValue.count, output.baseAddress, output.count)
            }
        }
        guard length > 0 else { throw AuthenticatorError(.cryptoFailure, "OpenSSL could not issue the certificate \(commonName)") }
        return Array(buffer.prefix(length))
    }

    /// Whether the parsed key is of the type (and on the curve) `algorithm` needs.
    private func fits(_ algorithm: CredentialAlgorithm) -> Bool {
        switch algorithm {
        case .es256, .es384:
            guard EVP_PKEY_is_a(key, "EC") == 1 else { return false }
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, &name, name.count, &length) == 1 else { return false }
            let group = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return group == (algorithm == .es256 ? "prime256v1" : "secp384r1")
        case .edDSA:
            return EVP_PKEY_is_a(key, "ED25519") == 1
        case .rs256:
            return EVP_PKEY_is_a(key, "RSA") == 1 && EVP_PKEY_get_bits(key) >= 2048
        }
    }

    /// Runs an OpenSSL export into a 1 KiB buffer and keeps the bytes it wrote.
    private func exported(_ what: String, _ body: (UnsafeMutablePointer<UInt8>, Int) -> Int) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 1024)
        let length = buffer.withUnsafeMutableBufferPointer { pointer in
            pointer.baseAddress.map { body($0, pointer.count) } ?? 0
        }
        guard length > 0 else { throw AuthenticatorError(.cryptoFailure, "OpenSSL could not produce the \(algorithm.rawValue) \(what)") }
        return Array(buffer.prefix(length))
    }
}

/// The public numbers of a credential key, by COSE key type.
enum PublicKeyParts: Equatable {
    /// EC2 (kty 2): curve (1 P-256, 2 P-384) and the two coordinates.
    case ec2(curve: Int64, x: [UInt8], y: [UInt8])
    /// OKP (kty 1): curve (6 Ed25519) and the public key.
    case okp(curve: Int64, x: [UInt8])
    /// RSA (kty 3): modulus and exponent, big-endian.
    case rsa(n: [UInt8], e: [UInt8])
}
