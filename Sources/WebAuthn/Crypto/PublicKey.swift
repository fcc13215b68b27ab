import CLatchkeyShims
import COpenSSL

/// A public key held by OpenSSL (`EVP_PKEY`), freed when this value goes away.
public final class PublicKey: @unchecked Sendable {
    // Immutable after init; OpenSSL allows concurrent verification with one EVP_PKEY.
    let key: OpaquePointer

    /// Takes ownership of `key`.
    init(owning key: OpaquePointer) {
        self.key = key
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// An EC public key from its affine coordinates; refuses points that are not on the curve.
    static func elliptic(curve: EllipticCurve, x: [UInt8], y: [UInt8]) throws -> PublicKey {
        let point = [0x04] + x + y
        guard let key = latchkey_ec_public_key(curve.groupName, point, point.count) else {
            throw WebAuthnError(.malformedPublicKey, "EC2 public key is not a valid point on \(curve.groupName)")
        }
        return PublicKey(owning: key)
    }

    /// An RSA public key from its modulus and exponent.
    static func rsa(modulus: [UInt8], exponent: [UInt8]) throws -> PublicKey {
        guard let key = latchkey_rsa_public_key(modulus, modulus.count, exponent, exponent.count) else {
            throw WebAuthnError(.malformedPublicKey, "RSA public key could not be built from n and e")
        }
        return PublicKey(owning: key)
    }

    /// An Ed25519 or Ed448 public key from its raw encoding.
    static func edwards(curve: EdwardsCurve, x: [UInt8]) throws -> PublicKey {
        let type = curve == .ed25519 ? EVP_PKEY_ED25519 : EVP_PKEY_ED448
        guard let key = EVP_PKEY_new_raw_public_key(type, nil, x, x.count) else {
            throw WebAuthnError(.malformedPublicKey, "OKP public key is not a valid \(curve == .ed25519 ? "Ed25519" : "Ed448") key")
        }
        return PublicKey(owning: key)
    }

    /// The key's size in bits (modulus size for RSA, group order size for EC).
    public var bits: Int { Int(EVP_PKEY_get_bits(key)) }

    /// OpenSSL's name for the key type: "EC", "RSA", "ED25519", "ED448".
    var typeName: String {
        EVP_PKEY_get0_type_name(key).map { String(cString: $0) } ?? ""
    }

    /// The EC group's canonical name, or nil for keys that are not EC.
    var ellipticGroupName: String? {
        var buffer = [CChar](repeating: 0, count: 64)
        guard latchkey_ec_group_name(key, &buffer, buffer.count) == 1 else { return nil }
        return String(cStringBuffer: buffer)
    }

    /// The uncompressed point of an EC key, or nil for other keys.
    var ellipticPoint: [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let length = latchkey_ec_point(key, &buffer, buffer.count)
        return length == 0 ? nil : Array(buffer.prefix(length))
    }

    /// Checks `signature` over `message` under `algorithm`; throws ``WebAuthnError/Code/invalidSignature``
    /// when it does not verify and ``WebAuthnError/Code/unsupportedAlgorithm`` for unknown algorithms.
    public func verify(signature: [UInt8], over message: [UInt8], algorithm: COSEAlgorithm) throws {
        guard let scheme = algorithm.signatureScheme else {
            throw WebAuthnError(.unsupportedAlgorithm, "signature algorithm \(algorithm) is not supported")
        }
        try checkFits(scheme, algorithm: algorithm)
        try verify(signature: signature, over: message, [], scheme: scheme, algorithm: algorithm)
    }

    /// Checks `signature` over `first ‖ second` with a scheme already known to fit this key (a
    /// ``COSEKey`` is built for its algorithm), without joining the two pieces where OpenSSL can
    /// take them one after the other.
    func verify(signature: [UInt8], over first: [UInt8], _ second: [UInt8], scheme: SignatureScheme, algorithm: COSEAlgorithm) throws {
        guard !signature.isEmpty else {
            throw WebAuthnError(.invalidSignature, "signature is empty")
        }
        guard try DigestVerification().verify(signature, over: first, second, key: key, scheme: scheme) else {
            throw WebAuthnError(.invalidSignature, "\(algorithm.name) signature does not verify")
        }
    }

    /// Refuses to use a key with an algorithm of another family or curve.
    private func checkFits(_ scheme: SignatureScheme, algorithm: COSEAlgorithm) throws {
        let type = typeName
        let fits: Bool
        switch scheme {
        case .ecdsa(let curve, _):
            fits = type == "EC" && ellipticGroupName == curve.canonicalGroupName
        case .edDSA(let curve):
            switch curve {
            case .ed25519: fits = type == "ED25519"
            case .ed448: fits = type == "ED448"
            case nil: fits = type == "ED25519" || type == "ED448"
            }
        case .rsaPKCS1, .rsaPSS:
            fits = type == "RSA" || type == "RSA-PSS"
        }
        guard fits else {
            throw WebAuthnError(.malformedPublicKey, "a \(type) key cannot verify \(algorithm.name) signatures")
        }
    }
}
