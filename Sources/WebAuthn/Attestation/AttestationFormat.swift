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

    /// Verifies `input` with the format named `identifier`; an unknown format is
    /// ``WebAuthnError/Code/unsupportedAttestationFormat``.
    public func verify(format identifier: String, _ input: AttestationInput) throws -> AttestationResult {
        guard let format = formats[identifier] else {
            throw WebAuthnError(.unsupportedAttestationFormat, "attestation format \"\(identifier)\" is unknown")
        }
        return try format.verify(input)
    }
}
