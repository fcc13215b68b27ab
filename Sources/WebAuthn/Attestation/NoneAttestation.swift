/// The `none` format (WebAuthn §8.7): no statement, nothing to trust.
public struct NoneAttestation: AttestationFormat {
    public let identifier = "none"
    public init() {}

    public func verify(_ input: AttestationInput) throws -> AttestationResult {
        // §8.7: attStmt is an empty map. A filled statement relabelled "none" is refused.
        guard let entries = input.statement.mapEntries, entries.isEmpty else {
            throw WebAuthnError(.invalidAttestationStatement, "attestation format \"none\" requires an empty attStmt map")
        }
        return AttestationResult(type: .none)
    }
}
