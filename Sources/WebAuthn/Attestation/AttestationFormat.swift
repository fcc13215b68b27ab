import Foundation

/// The inputs every attestation statement format verifies against (WebAuthn §8).
public struct AttestationInput: Sendable {
    public let statement: CBORValue
    public let authenticatorData: AuthenticatorData
    public let clientDataHash: [UInt8]
    public let credentialKey: COSEKey
    /// The time to judge time-bound evidence at (certificate validity, SafetyNet timestamps); nil is now.
    public let verificationTime: Date?
    /// Whether SHA-1 based signatures (RS1) are accepted, per ``AttestationPolicy/allowSHA1``.
    public let allowSHA1: Bool

    public init(statement: CBORValue, authenticatorData: AuthenticatorData, clientDataHash: [UInt8], credentialKey: COSEKey, verificationTime: Date? = nil, allowSHA1: Bool = false) {
        self.statement = statement
        self.authenticatorData = authenticatorData
        self.clientDataHash = clientDataHash
        self.credentialKey = credentialKey
        self.verificationTime = verificationTime
        self.allowSHA1 = allowSHA1
    }

    /// The bytes attestation signatures cover: authenticatorData ‖ clientDataHash.
    public var signedBytes: [UInt8] { authenticatorData.bytes + clientDataHash }

    /// The verification time, or now.
    public var now: Date { verificationTime ?? Date() }

    /// Refuses an attestation signature algorithm the policy does not accept (RS1 unless allowed).
    public func checkSignatureAlgorithm(_ algorithm: COSEAlgorithm) throws {
        if algorithm == .rs1, !allowSHA1 {
            throw WebAuthnError(.algorithmNotAllowed, "RS1 (SHA-1) attestation signatures are refused; enable allowSHA1 to accept them")
        }
    }
}

/// One attestation statement format's verification procedure.
public protocol AttestationFormat: Sendable {
    /// The `fmt` identifier, such as `packed`.
    var identifier: String { get }
    func verify(_ input: AttestationInput) throws -> AttestationResult
}

/// The formats Latchkey verifies, looked up by `fmt`.
public struct AttestationFormats: Sendable {
    private let formats: [String: any AttestationFormat]

    public init(_ formats: [any AttestationFormat]) {
        self.formats = Dictionary(formats.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The `fmt` identifiers this set verifies.
    public var identifiers: Set<String> { Set(formats.keys) }

    /// Every format implemented, compound included.
    public static let all = AttestationFormats(single + [CompoundAttestation(members: AttestationFormats(single))])

    /// Every implemented format except `compound`: the formats a compound statement's members may use.
    static let single: [any AttestationFormat] = [
        NoneAttestation(), PackedAttestation(), TPMAttestation(), AndroidKeyAttestation(),
        AndroidSafetyNetAttestation(), FIDOU2FAttestation(), AppleAttestation(),
    ]

    public func verify(format identifier: String, _ input: AttestationInput) throws -> AttestationResult {
        guard let format = formats[identifier] else {
            throw WebAuthnError(.unsupportedAttestationFormat, "attestation format \"\(identifier)\" is unknown")
        }
        return try format.verify(input)
    }
}
