/// The `tpm` format (WebAuthn §8.3): a TPM 2.0 certifies the credential key (TPM2_Certify) with an
/// attestation identity key (AIK) whose certificate comes first in `x5c`. Attestation type AttCA.
/// Chains to trust anchors are judged separately; this checks the statement and the AIK certificate.
public struct TPMAttestation: AttestationFormat {
    public let identifier = "tpm"

    /// TPM manufacturer IDs accepted beyond ``registeredManufacturers`` and ``testManufacturers``,
    /// in the SAN form `id:` followed by eight hexadecimal digits.
    public let additionalManufacturers: Set<String>

    public init(additionalManufacturers: Set<String> = []) {
        self.additionalManufacturers = Set(additionalManufacturers.map { $0.uppercased() })
    }

    /// tcg-kp-AIKCertificate, the extended key usage §8.3.1 requires.
    static let aikCertificateKeyPurpose = "2.23.133.8.3"
    /// tcg-at-tpmManufacturer, tcg-at-tpmModel, tcg-at-tpmVersion (TCG EK credential profile §3.2.9).
    static let manufacturerOID = "2.23.133.2.1"
    static let modelOID = "2.23.133.2.2"
    static let versionOID = "2.23.133.2.3"

    /// The TCG TPM Vendor ID Registry (families 1.2 and 2.0): the four-byte vendor ID, as hex.
    public static let registeredManufacturers: [String: String] = [
        "414D4400": "AMD", "414E5400": "Ant Group", "41544D4C": "Atmel", "4252434D": "Broadcom",
        "4353434F": "Cisco", "464C5953": "Flyslice Technologies", "524F4343": "Fuzhou Rockchip",
        "474F4F47": "Google", "48504900": "HPI", "48504500": "HPE", "48495349": "Huawei",
        "49424D00": "IBM", "49465800": "Infineon", "494E5443": "Intel", "4C454E00": "Lenovo",
        "4D534654": "Microsoft", "4E534D20": "National Semiconductor", "4E545A00": "Nationz",
        "4E544300": "Nuvoton Technology", "51434F4D": "Qualcomm", "534D534E": "Samsung",
        "534E5300": "Sinosun", "534D5343": "SMSC", "53544D20": "ST Microelectronics",
        "54584E00": "Texas Instruments", "57454300": "Winbond",
    ]

    /// Vendor IDs outside the registry that test suites use, accepted so that they verify:
    /// FFFFF1D0 is the FIDO Alliance conformance tools' virtual TPM, 00000000 the W3C spec's
    /// test vector. Their AIK certificates chain only to test roots, so a relying party that
    /// configures real trust anchors still refuses them at the chain check.
    public static let testManufacturers: [String: String] = [
        "FFFFF1D0": "FIDO Alliance conformance tools", "00000000": "W3C WebAuthn test vectors",
    ]

    public func verify(_ input: AttestationInput) throws -> AttestationResult {
        // §8.3 step 1: attStmt is valid CBOR with ver, alg, x5c, sig, certInfo and pubArea.
        let statement = try AttestationStatement(input.statement, format: identifier)
        let version = try statement.text("ver")
        guard version == "2.0" else {
            throw WebAuthnError(.invalidAttestationStatement, "tpm attStmt.ver is \"\(version)\"; only \"2.0\" is defined")
        }
        let algorithm = try statement.algorithm()
        try input.checkSignatureAlgorithm(algorithm)
        if statement.contains("ecdaaKeyId") {
            throw WebAuthnError(.unsupportedAttestationFormat, "tpm ECDAA attestation is not supported (removed from WebAuthn Level 2)")
        }
        let chain = try statement.certificateChain()
        let signature = try statement.bytes("sig")
        let certInfoBytes = try statement.bytes("certInfo")
        let pubAreaBytes = try statement.bytes("pubArea")

        // §8.3 step 2: the public key in pubArea's parameters and unique fields is the credential public key.
        let pubArea = try TPMTPublic(pubAreaBytes)
        try Self.checkPublicArea(pubArea, matches: input.credentialKey)

        // §8.3 step 3: attToBeSigned = authenticatorData ‖ clientDataHash.
        let attToBeSigned = input.signedBytes

        // §8.3 step 4: certInfo is valid: magic and type (checked while parsing), extraData and attested.name.
        let certInfo = try TPMSAttest(certInfoBytes)
        guard let digest = Self.hash(of: algorithm) else {
            throw WebAuthnError(.invalidAttestationStatement, "tpm attStmt.alg \(algorithm) has no hash to compute extraData with")
        }
        // extraData is the hash of attToBeSigned using the hash algorithm employed in alg.
        guard constantTimeEquals(certInfo.extraData, digest.hash(attToBeSigned)) else {
            throw WebAuthnError(.invalidAttestationStatement, "tpm certInfo.extraData is not the \(digest.rawValue) hash of authenticatorData ‖ clientDataHash")
        }
        // attested.name is a valid Name for pubArea, computed with pubArea.nameAlg (qualifiedSigner,
        // clockInfo and firmwareVersion are ignored).
        guard certInfo.attestedName == (try pubArea.name()) else {
            throw WebAuthnError(.invalidAttestationStatement, "tpm certInfo.attested.name is not the Name of pubArea (nameAlg \(TPMAlgorithm.hex(pubArea.nameAlg)) ‖ hash of pubArea)")
        }

        // §8.3 step 5: sig is a valid signature over certInfo by the AIK key in x5c[0], using alg.
        let aikCertificate = chain[0]
        try aikCertificate.publicKey().verify(signature: signature, over: certInfoBytes, algorithm: algorithm)

        // §8.3 step 6: aikCert meets §8.3.1; an id-fido-gen-ce-aaguid extension matches the AAGUID.
        try checkCertificateRequirements(aikCertificate, authenticatorData: input.authenticatorData)

        // §8.3 step 7: attestation type AttCA, trust path x5c.
        return AttestationResult(type: .attCA, certificates: chain)
    }

    /// The hash an attestation signature algorithm employs: SHA-1 for RS1, SHA-256 for RS256, PS256
    /// and ES256, and so on; nil for EdDSA and algorithms Latchkey cannot verify.
    static func hash(of algorithm: COSEAlgorithm) -> Digest? {
        switch algorithm.signatureScheme {
        case .ecdsa(_, let digest)?, .rsaPKCS1(let digest)?, .rsaPSS(let digest)?: return digest
        case .edDSA?, nil: return nil
        }
    }

    /// §8.3 step 2: RSA keys compare modulus and exponent (0 in pubArea means 65537); ECC keys
    /// compare the curve and the point.
    static func checkPublicArea(_ pubArea: TPMTPublic, matches key: COSEKey) throws {
        func mismatch(_ what: String) -> WebAuthnError {
            WebAuthnError(.invalidAttestationStatement, "tpm pubArea does not match the credential public key: \(what)")
        }
        switch pubArea.unique {
        case .rsa(let modulus):
            guard key.keyType == .rsa, let credentialModulus = key.publicKey.rsaModulus,
                  let credentialExponent = key.publicKey.rsaPublicExponent else {
                throw mismatch("pubArea holds an RSA key, the credential a \(key.keyType) key")
            }
            guard Array(modulus.drop(while: { $0 == 0 })) == credentialModulus else {
                throw mismatch("RSA moduli differ (\(modulus.count) and \(credentialModulus.count) bytes)")
            }
            if let keyBits = pubArea.rsaKeyBits, Int(keyBits) != key.publicKey.bits {
                throw mismatch("pubArea.parameters.keyBits \(keyBits) is not the modulus size \(key.publicKey.bits)")
            }
            let exponent = pubArea.effectiveRSAExponent ?? TPMTPublic.defaultRSAExponent
            let exponentBytes = Array(withUnsafeBytes(of: exponent.bigEndian, Array.init).drop(while: { $0 == 0 }))
            guard exponentBytes == credentialExponent else {
                throw mismatch("RSA exponent \(exponent) differs from the credential's")
            }
        case .ecc(let x, let y):
            let curveID = pubArea.curveID ?? 0
            guard let curve = TPMTPublic.curves[curveID] else {
                throw mismatch("pubArea curve \(TPMAlgorithm.hex(curveID)) is not NIST P-256, P-384 or P-521")
            }
            guard key.keyType == .ec2, key.publicKey.ellipticGroupName == curve.canonicalGroupName else {
                throw mismatch("pubArea holds a \(curve.groupName) key, the credential a \(key.keyType) key on \(key.publicKey.ellipticGroupName ?? "no curve")")
            }
            let length = curve.coordinateLength
            guard x.count <= length, y.count <= length else {
                throw mismatch("pubArea coordinates are \(x.count) and \(y.count) bytes; \(curve.groupName) needs at most \(length)")
            }
            let padding = { (coordinate: [UInt8]) in [UInt8](repeating: 0, count: length - coordinate.count) + coordinate }
            guard key.publicKey.ellipticPoint == [0x04] + padding(x) + padding(y) else {
                throw mismatch("EC points differ")
            }
        }
    }

    /// §8.3.1: TPM attestation (AIK) certificate requirements, and the id-fido-gen-ce-aaguid check.
    func checkCertificateRequirements(_ certificate: X509Certificate, authenticatorData: AuthenticatorData) throws {
        // Version MUST be set to 3.
        guard certificate.version == 3 else {
            throw WebAuthnError(.invalidCertificate, "tpm AIK certificate is version \(certificate.version); version 3 is required")
        }
        // Subject field MUST be set to empty.
        guard certificate.hasEmptySubject else {
            throw WebAuthnError(.invalidCertificate, "tpm AIK certificate subject is not empty")
        }
        // The Subject Alternative Name extension MUST be set as defined in [TPMv2-EK-Profile] §3.2.9.
        try checkSubjectAlternativeName(certificate)
        // The Extended Key Usage extension MUST contain the OID 2.23.133.8.3.
        guard let keyPurposes = try certificate.extendedKeyUsages() else {
            throw WebAuthnError(.invalidCertificate, "tpm AIK certificate has no extended key usage extension")
        }
        guard keyPurposes.contains(Self.aikCertificateKeyPurpose) else {
            throw WebAuthnError(.invalidCertificate, "tpm AIK certificate extended key usage \(keyPurposes) lacks tcg-kp-AIKCertificate (\(Self.aikCertificateKeyPurpose))")
        }
        // The Basic Constraints extension MUST have the CA component set to false.
        guard !certificate.isCertificateAuthority else {
            throw WebAuthnError(.invalidCertificate, "tpm AIK certificate is a CA (basic constraints CA is true)")
        }
        // If aikCert contains id-fido-gen-ce-aaguid, its value matches the aaguid in authenticatorData.
        try certificate.checkFIDOAAGUID(matches: authenticatorData, role: "tpm AIK certificate")
    }

    /// The SAN holds a directoryName with the TPM manufacturer, model and version. Real AIK
    /// certificates put the three attributes either in one multi-valued RDN or in one RDN each;
    /// both layouts are accepted because the attributes are read across RDNs.
    ///
    /// Manufacturer policy: the EK profile defines the manufacturer as a vendor ID of the TCG
    /// registry, so an ID outside ``registeredManufacturers`` makes the SAN non-conforming and the
    /// certificate is refused, unless it is one of ``testManufacturers`` or was configured in
    /// ``additionalManufacturers`` (for a vendor registered after this list was written).
    private func checkSubjectAlternativeName(_ certificate: X509Certificate) throws {
        guard let attributes = try certificate.subjectAlternativeDirectoryAttributes() else {
            throw WebAuthnError(.invalidCertificate, "tpm AIK certificate has no subject alternative name extension")
        }
        func single(_ oid: String, _ name: String) throws -> String {
            let values = attributes.filter { $0.oid == oid }.map(\.value)
            guard values.count == 1, let value = values.first, !value.isEmpty else {
                throw WebAuthnError(.invalidCertificate, "tpm AIK certificate subject alternative name has \(values.count) \(name) (\(oid)) values; exactly one non-empty value is required")
            }
            return value
        }
        let manufacturer = try single(Self.manufacturerOID, "TPM manufacturer")
        _ = try single(Self.modelOID, "TPM model")
        _ = try single(Self.versionOID, "TPM version")
        guard isAcceptedManufacturer(manufacturer) else {
            throw WebAuthnError(.invalidCertificate, "tpm AIK certificate TPM manufacturer \"\(manufacturer)\" is not a registered TCG vendor ID")
        }
    }

    /// Whether a SAN manufacturer value (`id:` and eight hexadecimal digits) is accepted.
    func isAcceptedManufacturer(_ value: String) -> Bool {
        guard value.hasPrefix("id:") else { return false }
        let hex = value.dropFirst(3).uppercased()
        guard hex.count == 8, hex.allSatisfy(\.isHexDigit) else { return false }
        return Self.registeredManufacturers[hex] != nil || Self.testManufacturers[hex] != nil
            || additionalManufacturers.contains("ID:" + hex)
    }
}
