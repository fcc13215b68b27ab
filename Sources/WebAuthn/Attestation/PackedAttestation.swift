import COpenSSL

/// The `packed` format (WebAuthn §8.2): self attestation, or basic attestation by an `x5c` chain.
/// Chains to trust anchors are judged separately; this checks the statement and the leaf.
public struct PackedAttestation: AttestationFormat {
    public let identifier = "packed"
    public init() {}


    public func verify(_ input: AttestationInput) throws -> AttestationResult {
        // §8.2 step 1: attStmt is valid CBOR with alg, sig and optionally x5c.
        let statement = try AttestationStatement(input.statement, format: identifier)
        let algorithm = try statement.algorithm()
        try input.checkSignatureAlgorithm(algorithm)
        let signature = try statement.bytes("sig")
        if statement.contains("ecdaaKeyId") {
            throw WebAuthnError(.unsupportedAttestationFormat, "packed ECDAA attestation is not supported (removed from WebAuthn Level 2)")
        }
        guard statement.contains("x5c") else {
            return try verifySelfAttestation(input, algorithm: algorithm, signature: signature)
        }
        // §8.2 step 2: basic or AttCA attestation.
        let chain = try statement.certificateChain()
        let leaf = chain[0]
        try leaf.publicKey().verify(signature: signature, over: input.signedBytes, algorithm: algorithm)
        try Self.checkCertificateRequirements(leaf, authenticatorData: input.authenticatorData)
        return AttestationResult(type: .basic, certificates: chain)
    }

    /// §8.2 step 3: self attestation, signed by the credential key itself.
    private func verifySelfAttestation(_ input: AttestationInput, algorithm: COSEAlgorithm, signature: [UInt8]) throws -> AttestationResult {
        guard algorithm == input.credentialKey.algorithm else {
            throw WebAuthnError(.invalidAttestationStatement, "packed self attestation alg \(algorithm) differs from the credential key's \(input.credentialKey.algorithm)")
        }
        try input.credentialKey.verify(signature: signature, over: input.signedBytes)
        return AttestationResult(type: .self)
    }

    /// §8.2.1: packed attestation certificate requirements.
    static func checkCertificateRequirements(_ certificate: X509Certificate, authenticatorData: AuthenticatorData) throws {
        guard certificate.version == 3 else {
            throw WebAuthnError(.invalidCertificate, "packed attestation certificate is version \(certificate.version); version 3 is required")
        }
        guard certificate.subjectAttribute(NID_organizationalUnitName) == ["Authenticator Attestation"] else {
            throw WebAuthnError(.invalidCertificate, "packed attestation certificate subject OU is not \"Authenticator Attestation\"")
        }
        for (nid, name) in [(NID_countryName, "C"), (NID_organizationName, "O"), (NID_commonName, "CN")]
        where certificate.subjectAttribute(nid).first?.isEmpty ?? true {
            throw WebAuthnError(.invalidCertificate, "packed attestation certificate subject has no \(name)")
        }
        guard !certificate.isCertificateAuthority else {
            throw WebAuthnError(.invalidCertificate, "packed attestation certificate is a CA (basic constraints CA is true)")
        }
        try certificate.checkFIDOAAGUID(matches: authenticatorData, role: "packed attestation certificate")
    }
}
