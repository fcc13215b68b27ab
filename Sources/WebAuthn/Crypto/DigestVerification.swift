import COpenSSL

/// One `EVP_DigestVerify` run: a fresh `EVP_MD_CTX`, owned by this value and freed with it.
struct DigestVerification: ~Copyable {
    private let context: OpaquePointer

    init() throws {
        guard let context = EVP_MD_CTX_new() else {
            throw WebAuthnError(.cryptoFailure, "OpenSSL could not allocate a digest context")
        }
        self.context = context
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    /// Checks `signature` over `first ‖ second` without joining them: the digest of a hash-then-sign
    /// scheme is fed both pieces in turn. EdDSA hashes inside the signature and takes one buffer
    /// (OpenSSL has no streaming EdDSA), so its pieces are joined. Returns false for a signature that
    /// does not verify; throws ``WebAuthnError/Code/cryptoFailure`` when OpenSSL cannot set up.
    consuming func verify(
        _ signature: [UInt8], over first: [UInt8], _ second: [UInt8], key: OpaquePointer, scheme: SignatureScheme
    ) throws -> Bool {
        defer { ERR_clear_error() }
        let digest: Digest?
        let pss: Bool
        switch scheme {
        case .ecdsa(_, let hash), .rsaPKCS1(let hash): (digest, pss) = (hash, false)
        case .rsaPSS(let hash): (digest, pss) = (hash, true)
        case .edDSA: (digest, pss) = (nil, false)
        }
        var md: OpaquePointer?
        if let digest {
            guard let fetched = digest.fetched else {
                throw WebAuthnError(.cryptoFailure, "OpenSSL offers no \(digest.rawValue) implementation")
            }
            md = fetched.md
        }
        var keyContext: OpaquePointer?
        guard EVP_DigestVerifyInit(context, &keyContext, md, nil, key) == 1 else {
            throw WebAuthnError(.cryptoFailure, "OpenSSL could not set up signature verification")
        }
        if pss {
            guard EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING) == 1,
                  EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, RSA_PSS_SALTLEN_DIGEST) == 1 else {
                throw WebAuthnError(.cryptoFailure, "OpenSSL could not set up RSASSA-PSS verification")
            }
        }
        if md == nil {
            let message = first + second
            return EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
        }
        guard EVP_DigestVerifyUpdate(context, first, first.count) == 1,
              EVP_DigestVerifyUpdate(context, second, second.count) == 1 else {
            throw WebAuthnError(.cryptoFailure, "OpenSSL could not hash the signed data")
        }
        return EVP_DigestVerifyFinal(context, signature, signature.count) == 1
    }
}
