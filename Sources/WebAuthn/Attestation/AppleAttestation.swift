/// The `apple` format (WebAuthn §8.8): Apple anonymous attestation. Apple's anonymization CA
/// issues a certificate for the credential key itself, with the attestation nonce in an extension.
/// Chains to trust anchors are judged separately; this checks the statement and the leaf.
public struct AppleAttestation: AttestationFormat {
    public let identifier = "apple"
    public init() {}

    /// The certificate extension that carries the nonce, in Apple's WebAuthn and App Attest leaves.
    public static let nonceExtensionOID = "1.2.840.113635.100.8.2"

    public func verify(_ input: AttestationInput) throws -> AttestationResult {
        // §8.8 step 1: attStmt is valid CBOR with x5c.
        let chain = try AttestationStatement(input.statement, format: identifier).certificateChain()
        let credentialCertificate = chain[0]

        // §8.8 steps 2-3: nonce = SHA-256(authenticatorData ‖ clientDataHash).
        let expectedNonce = Digest.sha256(input.signedBytes)

        // §8.8 step 4: the nonce equals the value of extension 1.2.840.113635.100.8.2 in credCert.
        guard let (extensionValue, _) = credentialCertificate.extensionValue(oid: Self.nonceExtensionOID) else {
            throw WebAuthnError(.invalidCertificate, "apple credential certificate has no nonce extension \(Self.nonceExtensionOID)")
        }
        let nonce = try Self.nonce(fromExtension: extensionValue)
        guard constantTimeEquals(nonce, expectedNonce) else {
            throw WebAuthnError(.invalidAttestationStatement, "apple credential certificate nonce \(Hex.lowercase(nonce)) is not SHA-256(authenticatorData ‖ clientDataHash) \(Hex.lowercase(expectedNonce))")
        }

        // §8.8 step 5: the credential public key equals the subject public key of credCert.
        let certificateKey = try credentialCertificate.publicKey()
        guard certificateKey.isSameKey(as: input.credentialKey.publicKey) else {
            throw WebAuthnError(.invalidAttestationStatement, "apple credential certificate public key differs from the credential public key")
        }

        // §8.8 step 6: Anonymization CA, trust path x5c.
        return AttestationResult(type: .anonCA, certificates: chain)
    }

    /// The nonce inside the extension value: DER `SEQUENCE { [1] EXPLICIT OCTET STRING }`.
    static func nonce(fromExtension value: [UInt8]) throws -> [UInt8] {
        func malformed(_ what: String) -> WebAuthnError {
            WebAuthnError(.invalidCertificate, "apple nonce extension \(nonceExtensionOID) is malformed: \(what)")
        }
        var reader = DERReader(value)
        let sequence = try reader.read()
        guard sequence.tag == 0x30, reader.isAtEnd else { throw malformed("not one DER SEQUENCE") }
        // [1] EXPLICIT: context-specific, constructed, tag 1.
        guard let tagged = try sequence.children().first(where: { $0.tag == 0xA1 }) else {
            throw malformed("no [1] element")
        }
        let inner = try tagged.children()
        guard inner.count == 1, inner[0].tag == 0x04 else { throw malformed("[1] does not hold one OCTET STRING") }
        guard inner[0].content.count == 32 else {
            throw malformed("nonce is \(inner[0].content.count) bytes, not 32")
        }
        return inner[0].content
    }
}
