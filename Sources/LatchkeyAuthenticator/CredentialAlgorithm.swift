import WebAuthn

/// The credential algorithms the software authenticator makes keys for, named as in COSE.
public enum CredentialAlgorithm: String, CaseIterable, Codable, Sendable {
    /// ECDSA on P-256 with SHA-256.
    case es256 = "ES256"
    /// ECDSA on P-384 with SHA-384.
    case es384 = "ES384"
    /// EdDSA on Ed25519 (COSE -8).
    case edDSA = "EdDSA"
    /// RSASSA-PKCS1-v1_5 with SHA-256, 2048-bit keys.
    case rs256 = "RS256"

    /// The identifier in `pubKeyCredParams`, the credential public key and `attStmt.alg`.
    public var coseAlgorithm: COSEAlgorithm {
        switch self {
        case .es256: return .es256
        case .es384: return .es384
        case .edDSA: return .edDSA
        case .rs256: return .rs256
        }
    }

    /// The algorithm a COSE identifier names, when this authenticator makes it.
    public init?(coseAlgorithm: COSEAlgorithm) {
        guard let algorithm = Self.allCases.first(where: { $0.coseAlgorithm == coseAlgorithm }) else { return nil }
        self = algorithm
    }

    /// OpenSSL's name of the hash signed messages go through; nil for EdDSA, which hashes itself.
    var digestName: String? {
        switch self {
        case .es256, .rs256: return "SHA256"
        case .es384: return "SHA384"
        case .edDSA: return nil
        }
    }
}
