import COpenSSL
import WebAuthn

/// The reference for a sign-in's cost: OpenSSL alone checking the same signature over the same
/// bytes, called directly (no Latchkey code in the loop), with the key built once beforehand and the
/// digest fetched once. Each check is what a careful C caller does: a fresh `EVP_MD_CTX`,
/// `EVP_DigestVerifyInit`, one-shot `EVP_DigestVerify`, free.
final class RawOpenSSLVerifier {
    private let key: OpaquePointer
    private let digest: OpaquePointer?
    private let signature: [UInt8]
    private let message: [UInt8]

    /// Builds the OpenSSL key from a COSE_Key's parameters; `message` is authenticatorData ‖ clientDataHash.
    init(coseKey: [UInt8], signature: [UInt8], message: [UInt8]) throws {
        let cose = try CBORDecoder().decode(coseKey)
        let digestName: String?
        switch (cose[intKey: 1]?.int64, cose[intKey: 3]?.int64) {
        case (2, let alg?):
            let groups: [Int64: String] = [1: "P-256", 2: "P-384", 3: "P-521"]
            guard let group = cose[intKey: -1]?.int64.flatMap({ groups[$0] }),
                  let x = cose[intKey: -2]?.byteString, let y = cose[intKey: -3]?.byteString else { fatalError("unsupported EC2 key") }
            key = Self.fromData(type: "EC") { builder in
                OSSL_PARAM_BLD_push_utf8_string(builder, "group", group, 0)
                let point = [0x04] + x + y
                OSSL_PARAM_BLD_push_octet_string(builder, "pub", point, point.count)
            }
            digestName = [-7: "SHA256", -35: "SHA384", -36: "SHA512"][alg]
        case (3, _):
            guard let n = cose[intKey: -1]?.byteString, let e = cose[intKey: -2]?.byteString else { fatalError("bad RSA key") }
            let modulus = BN_bin2bn(n, Int32(n.count), nil)
            let exponent = BN_bin2bn(e, Int32(e.count), nil)
            defer { BN_free(modulus); BN_free(exponent) }
            key = Self.fromData(type: "RSA") { builder in
                OSSL_PARAM_BLD_push_BN(builder, "n", modulus)
                OSSL_PARAM_BLD_push_BN(builder, "e", exponent)
            }
            digestName = "SHA256"
        case (1, _):
            guard let x = cose[intKey: -2]?.byteString else { fatalError("bad OKP key") }
            let type = cose[intKey: -1]?.int64 == 6 ? EVP_PKEY_ED25519 : EVP_PKEY_ED448
            guard let built = EVP_PKEY_new_raw_public_key(type, nil, x, x.count) else { fatalError("bad OKP key") }
            key = built
            digestName = nil
        default:
            fatalError("unsupported COSE key")
        }
        digest = digestName.map { EVP_MD_fetch(nil, $0, nil)! }
        self.signature = signature
        self.message = message
    }

    deinit {
        EVP_PKEY_free(key)
        if let digest { EVP_MD_free(digest) }
    }

    private static func fromData(type: String, _ push: (OpaquePointer) -> Void) -> OpaquePointer {
        let builder = OSSL_PARAM_BLD_new()!
        defer { OSSL_PARAM_BLD_free(builder) }
        push(builder)
        let params = OSSL_PARAM_BLD_to_param(builder)!
        defer { OSSL_PARAM_free(params) }
        let context = EVP_PKEY_CTX_new_from_name(nil, type, nil)!
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        // EVP_PKEY_PUBLIC_KEY: all parameters and the public key.
        guard EVP_PKEY_fromdata_init(context) == 1, EVP_PKEY_fromdata(context, &key, 0x86, params) == 1, let key else {
            fatalError("OpenSSL could not build the \(type) key")
        }
        return key
    }

    /// One signature check; stops the benchmark if it does not verify.
    func verify() {
        let context = EVP_MD_CTX_new()
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, digest, nil, key) == 1,
              EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1 else {
            fatalError("the raw OpenSSL check failed")
        }
    }
}
