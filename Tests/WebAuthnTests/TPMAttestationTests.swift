import Testing
@testable import WebAuthn

/// The `tpm` format on real vectors, and on copies tampered with so that exactly one check fails.
@Suite("TPM attestation")
struct TPMAttestationTests {
    /// FIDO conformance virtual TPM, RS256, RSA credential, manufacturer id:FFFFF1D0.
    static let rsaVector = "swa-tpm-reg"
    /// W3C spec vector, ES256, ECC credential, manufacturer id:00000000.
    static let eccVector = "w3c-tpm-es256-reg"

    func failure(_ attestation: DecodedVectorAttestation, format: TPMAttestation = TPMAttestation(), allowSHA1: Bool = true) -> WebAuthnError? {
        #expect(throws: WebAuthnError.self) { try format.verify(attestation.input(allowSHA1: allowSHA1)) }
    }

    @Test(arguments: [rsaVector, eccVector, "swa-tpm-san-spec-compliant-reg", "swa-tpm-san-non-compliant-reg", "pywebauthn-tpm-ecc-pubarea-reg"])
    func untamperedVectorsVerifyAsAttCA(_ name: String) throws {
        let attestation = try DecodedVectorAttestation(name)
        let result = try TPMAttestation().verify(attestation.input())
        #expect(result.type == .attCA)
        #expect(result.trustPath == (try attestation.certificates()))
    }

    @Test func wrongMagicIsRefused() throws {
        var attestation = try DecodedVectorAttestation(Self.rsaVector)
        var certInfo = try attestation.bytes("certInfo")
        certInfo[3] ^= 0x01
        attestation.set("certInfo", .bytes(certInfo))
        let error = failure(attestation)
        #expect(error?.code == .invalidAttestationStatement)
        #expect(error?.message.contains("magic") == true, "\(error?.message ?? "")")
    }

    @Test func typeOtherThanAttestCertifyIsRefused() throws {
        var attestation = try DecodedVectorAttestation(Self.rsaVector)
        var certInfo = try attestation.bytes("certInfo")
        certInfo[5] = 0x18  // TPM_ST_ATTEST_QUOTE
        attestation.set("certInfo", .bytes(certInfo))
        let error = failure(attestation)
        #expect(error?.code == .invalidAttestationStatement)
        #expect(error?.message.contains("TPM_ST_ATTEST_CERTIFY") == true, "\(error?.message ?? "")")
    }

    @Test(arguments: [rsaVector, eccVector])
    func extraDataMustBeTheHashOfAttToBeSigned(_ name: String) throws {
        var attestation = try DecodedVectorAttestation(name)
        attestation.clientDataHash[0] ^= 0x01
        let error = failure(attestation)
        #expect(error?.code == .invalidAttestationStatement)
        #expect(error?.message.contains("extraData") == true, "\(error?.message ?? "")")
    }

    @Test func attestedNameMustBeTheNameOfPubArea() throws {
        var attestation = try DecodedVectorAttestation(Self.rsaVector)
        var pubArea = try attestation.bytes("pubArea")
        pubArea[7] ^= 0x01  // objectAttributes: the key is unchanged, its Name is not
        attestation.set("pubArea", .bytes(pubArea))
        let error = failure(attestation)
        #expect(error?.code == .invalidAttestationStatement)
        #expect(error?.message.contains("attested.name") == true, "\(error?.message ?? "")")
    }

    @Test func pubAreaModulusMustMatchTheCredentialKey() throws {
        var attestation = try DecodedVectorAttestation(Self.rsaVector)
        var pubArea = try attestation.bytes("pubArea")
        pubArea[pubArea.count - 1] ^= 0x01
        attestation.set("pubArea", .bytes(pubArea))
        let error = failure(attestation)
        #expect(error?.code == .invalidAttestationStatement)
        #expect(error?.message.contains("moduli differ") == true, "\(error?.message ?? "")")
    }

    @Test func pubAreaExponentZeroMeans65537AndOthersMustMatch() throws {
        var attestation = try DecodedVectorAttestation(Self.rsaVector)
        var pubArea = try attestation.bytes("pubArea")
        let parsed = try TPMTPublic(pubArea)
        #expect(parsed.rsaExponent == 0)
        #expect(parsed.effectiveRSAExponent == 65537)
        guard case .rsa(let modulus) = parsed.unique else {
            Issue.record("expected an RSA pubArea")
            return
        }
        let exponentOffset = pubArea.count - 2 - modulus.count - 4
        pubArea[exponentOffset + 3] = 3
        attestation.set("pubArea", .bytes(pubArea))
        let error = failure(attestation)
        #expect(error?.code == .invalidAttestationStatement)
        #expect(error?.message.contains("exponent 3") == true, "\(error?.message ?? "")")
    }

    @Test func eccPubAreaDoesNotMatchAnRSACredential() throws {
        var attestation = try DecodedVectorAttestation(Self.rsaVector)
        attestation.set("pubArea", .bytes(try DecodedVectorAttestation(Self.eccVector).bytes("pubArea")))
        let error = failure(attestation)
        #expect(error?.code == .invalidAttestationStatement)
        #expect(error?.message.contains("does not match the credential public key") == true, "\(error?.message ?? "")")
    }

    @Test func eccPointMustMatchTheCredentialKey() throws {
        var attestation = try DecodedVectorAttestation(Self.eccVector)
        var pubArea = try attestation.bytes("pubArea")
        pubArea[pubArea.count - 1] ^= 0x01
        attestation.set("pubArea", .bytes(pubArea))
        let error = failure(attestation)
        #expect(error?.code == .invalidAttestationStatement)
        #expect(error?.message.contains("EC points differ") == true, "\(error?.message ?? "")")
    }

    @Test func certificatesInWrongOrderAreRefused() throws {
        var attestation = try DecodedVectorAttestation(Self.rsaVector)
        let chain = try attestation.certificates()
        #expect(chain.count == 2)
        attestation.setCertificates(chain.reversed())
        let error = failure(attestation)
        #expect(error?.code == .invalidSignature)
    }

    @Test func tamperedSignatureIsRefused() throws {
        var attestation = try DecodedVectorAttestation(Self.eccVector)
        var sig = try attestation.bytes("sig")
        sig[sig.count - 1] ^= 0x01
        attestation.set("sig", .bytes(sig))
        #expect(failure(attestation)?.code == .invalidSignature)
    }

    @Test func versionMustBe2Point0() throws {
        var attestation = try DecodedVectorAttestation(Self.rsaVector)
        attestation.set("ver", .text("1.2"))
        let error = failure(attestation)
        #expect(error?.code == .invalidAttestationStatement)
        #expect(error?.message.contains("ver") == true)
    }

    @Test func rs1NeedsTheSHA1Policy() throws {
        let attestation = try DecodedVectorAttestation("swa-tpm-rs1-sha1-reg")
        #expect(failure(attestation, allowSHA1: false)?.code == .algorithmNotAllowed)
        #expect(try TPMAttestation().verify(attestation.input(allowSHA1: true)).type == .attCA)
    }

    @Test func unregisteredManufacturerIsRefusedUnlessConfigured() throws {
        var attestation = try DecodedVectorAttestation(Self.rsaVector)
        try attestation.patchLeaf(Array("id:FFFFF1D0".utf8), Array("id:FFFFF1D1".utf8))
        let error = failure(attestation)
        #expect(error?.code == .invalidCertificate)
        #expect(error?.message.contains("id:FFFFF1D1") == true, "\(error?.message ?? "")")
        let configured = TPMAttestation(additionalManufacturers: ["id:fffff1d1"])
        #expect(try configured.verify(attestation.input()).type == .attCA)
    }

    @Test func aikCertificateNeedsTheAIKKeyPurpose() throws {
        var attestation = try DecodedVectorAttestation(Self.rsaVector)
        // 2.23.133.8.3 -> 2.23.133.8.4 in the extended key usage.
        try attestation.patchLeaf([0x06, 0x05, 0x67, 0x81, 0x05, 0x08, 0x03], [0x06, 0x05, 0x67, 0x81, 0x05, 0x08, 0x04])
        let error = failure(attestation)
        #expect(error?.code == .invalidCertificate)
        #expect(error?.message.contains("2.23.133.8.3") == true, "\(error?.message ?? "")")
    }

    @Test func aikCertificateAAGUIDMustMatch() throws {
        var attestation = try DecodedVectorAttestation("swa-tpm-aaguid-ext-match-reg")
        #expect(try TPMAttestation().verify(attestation.input()).type == .attCA)
        let aaguid = try #require(attestation.authenticatorData.attestedCredentialData?.aaguid)
        var other = aaguid
        other[15] ^= 0x01
        try attestation.patchLeaf([0x04, 0x10] + aaguid, [0x04, 0x10] + other)
        let error = failure(attestation)
        #expect(error?.code == .invalidCertificate)
        #expect(error?.message.contains("AAGUID") == true, "\(error?.message ?? "")")
    }

    @Test func aaguidMismatchVectorFailsForThatReason() throws {
        let error = failure(try DecodedVectorAttestation("swa-tpm-aaguid-ext-mismatch-reg"))
        #expect(error?.code == .invalidCertificate)
        #expect(error?.message.contains("does not match the authenticator data AAGUID") == true, "\(error?.message ?? "")")
    }

    @Test(arguments: ["swa-tpm-san-spec-compliant-reg", "swa-tpm-san-non-compliant-reg", eccVector])
    func bothSANLayoutsYieldTheThreeAttributes(_ name: String) throws {
        let leaf = try X509Certificate(der: try DecodedVectorAttestation(name).certificates()[0])
        let attributes = try #require(try leaf.subjectAlternativeDirectoryAttributes())
        #expect(Set(attributes.map(\.oid)) == ["2.23.133.2.1", "2.23.133.2.2", "2.23.133.2.3"])
        #expect(attributes.count == 3)
        #expect(leaf.hasEmptySubject)
        #expect(try leaf.extendedKeyUsages() == ["2.23.133.8.3"])
    }

    @Test func manufacturerPolicy() {
        let format = TPMAttestation()
        #expect(format.isAcceptedManufacturer("id:4E544300"))  // Nuvoton
        #expect(format.isAcceptedManufacturer("id:53544D20"))  // ST Microelectronics
        #expect(format.isAcceptedManufacturer("id:49424d00"))  // IBM, lowercase hex
        #expect(format.isAcceptedManufacturer("id:FFFFF1D0"))  // FIDO conformance tools
        #expect(format.isAcceptedManufacturer("id:00000000"))  // W3C test vector
        #expect(!format.isAcceptedManufacturer("id:12345678"))
        #expect(!format.isAcceptedManufacturer("4E544300"))
        #expect(!format.isAcceptedManufacturer("id:4E5443"))
        #expect(!format.isAcceptedManufacturer("id:4E54430G"))
        #expect(TPMAttestation(additionalManufacturers: ["id:12345678"]).isAcceptedManufacturer("id:12345678"))
    }

    @Test func certInfoParserRefusesTrailingAndMissingBytes() throws {
        let certInfo = try DecodedVectorAttestation(Self.eccVector).bytes("certInfo")
        let parsed = try TPMSAttest(certInfo)
        #expect(parsed.magic == TPMSAttest.generatedValue)
        #expect(parsed.extraData.count == 32)
        #expect(parsed.attestedName.count == 34)
        #expect(throws: WebAuthnError.self) { try TPMSAttest(certInfo + [0]) }
        #expect(throws: WebAuthnError.self) { try TPMSAttest(Array(certInfo.dropLast())) }
    }

    @Test func pubAreaParserReadsECCAndRefusesOtherTypes() throws {
        let pubArea = try DecodedVectorAttestation(Self.eccVector).bytes("pubArea")
        let parsed = try TPMTPublic(pubArea)
        #expect(parsed.type == TPMAlgorithm.ecc)
        #expect(parsed.curveID == 0x0003)
        #expect(parsed.nameAlg == TPMAlgorithm.sha256)
        var keyedHash = pubArea
        keyedHash[1] = 0x08  // TPM_ALG_KEYEDHASH
        #expect(throws: WebAuthnError.self) { try TPMTPublic(keyedHash) }
        #expect(throws: WebAuthnError.self) { try TPMTPublic(pubArea + [0]) }
        #expect(throws: WebAuthnError.self) { try TPMTPublic(Array(pubArea.prefix(20))) }
    }

    @Test func objectIdentifiersDecode() throws {
        #expect(try X509Certificate.dottedObjectIdentifier([0x67, 0x81, 0x05, 0x08, 0x03]) == "2.23.133.8.3")
        #expect(try X509Certificate.dottedObjectIdentifier(hexBytes("2b06010401d679020111")) == "1.3.6.1.4.1.11129.2.1.17")
        #expect(throws: WebAuthnError.self) { try X509Certificate.dottedObjectIdentifier([0x67, 0x81]) }
    }
}
