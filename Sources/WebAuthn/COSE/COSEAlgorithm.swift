/// A COSE algorithm identifier (IANA "COSE Algorithms" registry), as used in `pubKeyCredParams`,
/// credential public keys and attestation statements.
public struct COSEAlgorithm: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }

    public static let es256 = COSEAlgorithm(rawValue: -7)
    public static let es384 = COSEAlgorithm(rawValue: -35)
    public static let es512 = COSEAlgorithm(rawValue: -36)
    public static let es256k = COSEAlgorithm(rawValue: -47)
    public static let edDSA = COSEAlgorithm(rawValue: -8)
    public static let ed25519 = COSEAlgorithm(rawValue: -19)
    public static let ed448 = COSEAlgorithm(rawValue: -53)
    public static let rs256 = COSEAlgorithm(rawValue: -257)
    public static let rs384 = COSEAlgorithm(rawValue: -258)
    public static let rs512 = COSEAlgorithm(rawValue: -259)
    public static let rs1 = COSEAlgorithm(rawValue: -65535)
    public static let ps256 = COSEAlgorithm(rawValue: -37)
    public static let ps384 = COSEAlgorithm(rawValue: -38)
    public static let ps512 = COSEAlgorithm(rawValue: -39)
    public static let mlDSA44 = COSEAlgorithm(rawValue: -48)
    public static let mlDSA65 = COSEAlgorithm(rawValue: -49)
    public static let mlDSA87 = COSEAlgorithm(rawValue: -50)

    /// The algorithms Latchkey verifies, strongest-first as offered in `pubKeyCredParams`.
    public static let verifiable: [COSEAlgorithm] = [
        .es256, .edDSA, .ed25519, .es384, .es512, .ps256, .ps384, .ps512, .rs256, .rs384, .rs512, .es256k, .ed448,
    ]

    public var name: String {
        switch self {
        case .es256: return "ES256"
        case .es384: return "ES384"
        case .es512: return "ES512"
        case .es256k: return "ES256K"
        case .edDSA: return "EdDSA"
        case .ed25519: return "Ed25519"
        case .ed448: return "Ed448"
        case .rs256: return "RS256"
        case .rs384: return "RS384"
        case .rs512: return "RS512"
        case .rs1: return "RS1"
        case .ps256: return "PS256"
        case .ps384: return "PS384"
        case .ps512: return "PS512"
        case .mlDSA44: return "ML-DSA-44"
        case .mlDSA65: return "ML-DSA-65"
        case .mlDSA87: return "ML-DSA-87"
        default: return "COSE algorithm \(rawValue)"
        }
    }

    public var description: String { "\(name) (\(rawValue))" }

    /// How a signature under this algorithm is checked; nil for algorithms Latchkey cannot verify.
    var signatureScheme: SignatureScheme? {
        switch self {
        case .es256: return .ecdsa(.p256, .sha256)
        case .es384: return .ecdsa(.p384, .sha384)
        case .es512: return .ecdsa(.p521, .sha512)
        case .es256k: return .ecdsa(.secp256k1, .sha256)
        case .edDSA: return .edDSA(nil)
        case .ed25519: return .edDSA(.ed25519)
        case .ed448: return .edDSA(.ed448)
        case .rs256: return .rsaPKCS1(.sha256)
        case .rs384: return .rsaPKCS1(.sha384)
        case .rs512: return .rsaPKCS1(.sha512)
        case .rs1: return .rsaPKCS1(.sha1)
        case .ps256: return .rsaPSS(.sha256)
        case .ps384: return .rsaPSS(.sha384)
        case .ps512: return .rsaPSS(.sha512)
        default: return nil
        }
    }
}

/// The signature primitive behind a COSE algorithm.
enum SignatureScheme: Equatable {
    case ecdsa(EllipticCurve, Digest)
    /// EdDSA; the curve is fixed by fully specified identifiers and free (Ed25519 or Ed448) for -8.
    case edDSA(EdwardsCurve?)
    case rsaPKCS1(Digest)
    case rsaPSS(Digest)
}

/// Short-Weierstrass curves of EC2 keys.
public enum EllipticCurve: Int64, Sendable {
    case p256 = 1
    case p384 = 2
    case p521 = 3
    case secp256k1 = 8

    /// OpenSSL's group name.
    var groupName: String {
        switch self {
        case .p256: return "P-256"
        case .p384: return "P-384"
        case .p521: return "P-521"
        case .secp256k1: return "secp256k1"
        }
    }

    /// OpenSSL's canonical name for the group, as reported back for a parsed key.
    var canonicalGroupName: String {
        switch self {
        case .p256: return "prime256v1"
        case .p384: return "secp384r1"
        case .p521: return "secp521r1"
        case .secp256k1: return "secp256k1"
        }
    }

    /// Length of one coordinate in bytes.
    var coordinateLength: Int {
        switch self {
        case .p256, .secp256k1: return 32
        case .p384: return 48
        case .p521: return 66
        }
    }
}

/// Edwards curves of OKP keys.
public enum EdwardsCurve: Int64, Sendable {
    case ed25519 = 6
    case ed448 = 7

    var keyLength: Int { self == .ed25519 ? 32 : 57 }
}
