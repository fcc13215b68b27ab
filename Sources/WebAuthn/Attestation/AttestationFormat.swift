/// The inputs every attestation statement format verifies against (WebAuthn §8).
public struct AttestationInput: Sendable {
    public let statement: CBORValue
    public let authenticatorData: AuthenticatorData
    public let clientDataHash: [UInt8]
    public let credentialKey: COSEKey

    /// The bytes attestation signatures cover: authenticatorData ‖ clientDataHash.
    public var signedBytes: [UInt8] { authenticatorData.bytes + clientDataHash }
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

    /// Every format implemented so far.
    public static let all = AttestationFormats([NoneAttestation(), PackedAttestation()])

    /// Formats that are registered in WebAuthn but whose verification is not implemented yet.
    static let registeredButUnsupported: Set<String> = ["tpm", "android-key", "android-safetynet", "fido-u2f", "apple", "compound"]

    public func verify(format identifier: String, _ input: AttestationInput) throws -> AttestationResult {
        guard let format = formats[identifier] else {
            if Self.registeredButUnsupported.contains(identifier) {
                throw WebAuthnError(.unsupportedAttestationFormat, "attestation format \"\(identifier)\" is not supported yet")
            }
            throw WebAuthnError(.unsupportedAttestationFormat, "attestation format \"\(identifier)\" is unknown")
        }
        return try format.verify(input)
    }
}
