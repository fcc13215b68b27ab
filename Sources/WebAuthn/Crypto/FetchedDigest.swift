import COpenSSL

/// A digest implementation fetched from OpenSSL once (`EVP_MD_fetch`) and kept for the life of the
/// process, so hashing and signature checks skip OpenSSL's per-call algorithm lookup.
final class FetchedDigest: @unchecked Sendable {
    // Immutable after init; OpenSSL allows one fetched EVP_MD to be used by many threads at once.
    let md: OpaquePointer

    /// Fetches `name` from the default library context; nil when no provider offers it.
    init?(fetching name: String) {
        guard let md = EVP_MD_fetch(nil, name, nil) else {
            ERR_clear_error()
            return nil
        }
        self.md = md
    }

    deinit {
        EVP_MD_free(md)
    }

    static let sha1 = FetchedDigest(fetching: "SHA1")
    static let sha256 = FetchedDigest(fetching: "SHA256")
    static let sha384 = FetchedDigest(fetching: "SHA384")
    static let sha512 = FetchedDigest(fetching: "SHA512")
}

extension Digest {
    /// This digest's implementation, fetched once; nil only when OpenSSL's providers lack it.
    var fetched: FetchedDigest? {
        switch self {
        case .sha1: return FetchedDigest.sha1
        case .sha256: return FetchedDigest.sha256
        case .sha384: return FetchedDigest.sha384
        case .sha512: return FetchedDigest.sha512
        }
    }
}
