import Testing
@testable import WebAuthn

/// The `android-key` format on real vectors, tampered copies, and hand-built key descriptions.
@Suite("Android key attestation")
struct AndroidKeyAttestationTests {
    /// Samsung Galaxy S9, hardware-backed, chains to a Google root.
    static let deviceVector = "swa-android-key-galaxy-s9-reg"
    /// FIDO conformance tools, two certificates; teeEnforced carries rollbackResistant [703].
    static let conformanceVector = "f2nl-android-key-reg"

    func failure(_ attestation: DecodedVectorAttestation, format: AndroidKeyAttestation = AndroidKeyAttestation()) -> WebAuthnError? {
        #expect(throws: WebAuthnError.self) { try format.verify(attestation.input()) }
    }

    @Test(arguments: [deviceVector, conformanceVector, "pywebauthn-android-key-hw-reg"])
    func untamperedVectorsVerifyAsBasic(_ name: String) throws {
        let attestation = try DecodedVectorAttestation(name)
        let result = try AndroidKeyAttestation().verify(attestation.input())
        #expect(result.type == .basic)
        #expect(result.trustPath == (try attestation.certificates()))
    }

    @Test func attestationChallengeMustBeTheClientDataHash() throws {
        var attestation = try DecodedVectorAttestation(Self.deviceVector)
        var other = attestation.clientDataHash
        other[0] ^= 0x01
        try attestation.patchLeaf([0x04, 0x20] + attestation.clientDataHash, [0x04, 0x20] + other)
        let error = failure(attestation)
        #expect(error?.code == .invalidAttestationStatement)
        #expect(error?.message.contains("attestationChallenge") == true, "\(error?.message ?? "")")
    }

    @Test func leafKeyMustBeTheCredentialKey() throws {
        var attestation = try DecodedVectorAttestation(Self.deviceVector)
        attestation.credentialKey = try DecodedVectorAttestation("pywebauthn-android-key-hw-reg").credentialKey
        let error = failure(attestation)
        #expect(error?.code == .invalidAttestationStatement)
        #expect(error?.message.contains("credential public key") == true, "\(error?.message ?? "")")
    }

    @Test func certificatesInWrongOrderAreRefused() throws {
        var attestation = try DecodedVectorAttestation(Self.deviceVector)
        attestation.setCertificates(try attestation.certificates().reversed())
        let error = failure(attestation)
        // The first certificate is now another CA's: its key either is of another type or does not verify.
        #expect(error?.code == .invalidSignature || error?.code == .malformedPublicKey, "\(error.map { "\($0.code): \($0.message)" } ?? "")")
    }

    @Test func tamperedSignatureIsRefused() throws {
        var attestation = try DecodedVectorAttestation(Self.deviceVector)
        attestation.clientDataHash[31] ^= 0x01
        #expect(failure(attestation)?.code == .invalidSignature)
    }

    @Test func allApplicationsInTheCertificateIsRefused() throws {
        var attestation = try DecodedVectorAttestation(Self.conformanceVector)
        // teeEnforced rollbackResistant [703] NULL becomes allApplications [600] NULL.
        try attestation.patchLeaf(hexBytes("bf853f020500"), hexBytes("bf8458020500"))
        let error = failure(attestation)
        #expect(error?.code == .invalidCertificate)
        #expect(error?.message.contains("allApplications") == true, "\(error?.message ?? "")")
    }

    @Test func originOtherThanGeneratedIsRefused() throws {
        var attestation = try DecodedVectorAttestation(Self.deviceVector)
        // teeEnforced origin [702] INTEGER 0 becomes 1 (KM_ORIGIN_DERIVED).
        try attestation.patchLeaf(hexBytes("bf853e03020100"), hexBytes("bf853e03020101"))
        let error = failure(attestation)
        #expect(error?.code == .invalidCertificate)
        #expect(error?.message.contains("origin is 1") == true, "\(error?.message ?? "")")
    }

    @Test func purposeWithoutSignIsRefused() throws {
        var attestation = try DecodedVectorAttestation(Self.deviceVector)
        // teeEnforced purpose [1] SET { 2 } becomes SET { 3 } (KM_PURPOSE_VERIFY).
        try attestation.patchLeaf(hexBytes("a1053103020102"), hexBytes("a1053103020103"))
        let error = failure(attestation)
        #expect(error?.code == .invalidCertificate)
        #expect(error?.message.contains("KM_PURPOSE_SIGN") == true, "\(error?.message ?? "")")
    }

    @Test func emptyAuthorizationListsFailUnderEitherPolicy() throws {
        let attestation = try DecodedVectorAttestation("w3c-android-key-es256-reg")
        for policy in [AndroidKeyAttestation.EnforcementPolicy.trustedEnvironmentOnly, .trustedEnvironmentOrSoftware] {
            let error = failure(attestation, format: AndroidKeyAttestation(enforcement: policy))
            #expect(error?.code == .invalidCertificate)
            #expect(error?.message.contains("origin") == true, "\(error?.message ?? "")")
        }
    }

    // Hand-built key descriptions, for what no real certificate shows.

    static let challenge = [UInt8](repeating: 0xAB, count: 32)

    /// DER TLV with a definite length.
    static func tlv(_ tag: [UInt8], _ content: [UInt8]) -> [UInt8] {
        let length: [UInt8] = content.count < 0x80 ? [UInt8(content.count)]
            : content.count < 0x100 ? [0x81, UInt8(content.count)] : [0x82, UInt8(content.count >> 8), UInt8(content.count & 0xFF)]
        return tag + length + content
    }

    static let purposeSign = tlv([0xA1], tlv([0x31], tlv([0x02], [0x02])))
    static let originGenerated = tlv([0xBF, 0x85, 0x3E], tlv([0x02], [0x00]))
    static let allApplications = tlv([0xBF, 0x84, 0x58], tlv([0x05], []))

    static func keyDescription(software: [UInt8], tee: [UInt8], challenge: [UInt8] = challenge) -> [UInt8] {
        tlv([0x30], tlv([0x02], [0x03]) + tlv([0x0A], [0x01]) + tlv([0x02], [0x04]) + tlv([0x0A], [0x01])
            + tlv([0x04], challenge) + tlv([0x04], []) + tlv([0x30], software) + tlv([0x30], tee))
    }

    func check(_ der: [UInt8], _ policy: AndroidKeyAttestation.EnforcementPolicy = .trustedEnvironmentOnly) throws {
        try AndroidKeyAttestation(enforcement: policy).check(AndroidKeyAttestation.KeyDescription(der: der), clientDataHash: Self.challenge)
    }

    @Test func handBuiltDescriptionParsesAndPasses() throws {
        let der = Self.keyDescription(software: [], tee: Self.purposeSign + Self.originGenerated)
        let parsed = try AndroidKeyAttestation.KeyDescription(der: der)
        #expect(parsed.attestationVersion == 3)
        #expect(parsed.teeEnforced.purposes == [2])
        #expect(parsed.teeEnforced.origin == 0)
        #expect(!parsed.teeEnforced.allApplications)
        try check(der)
    }

    @Test func aKeyThatMayAlsoDecryptIsRefused() throws {
        // purpose SET { SIGN, DECRYPT (1) }: §8.4 asks for purpose equal to KM_PURPOSE_SIGN.
        let signAndDecrypt = Self.tlv([0xA1], Self.tlv([0x31], Self.tlv([0x02], [0x01]) + Self.tlv([0x02], [0x02])))
        let error = #expect(throws: WebAuthnError.self) {
            try check(Self.keyDescription(software: [], tee: signAndDecrypt + Self.originGenerated))
        }
        #expect(error?.code == .invalidCertificate)
        #expect(error?.message.contains("exactly KM_PURPOSE_SIGN") == true)
    }

    @Test func challengeMismatchInDescription() throws {
        let der = Self.keyDescription(software: [], tee: Self.purposeSign + Self.originGenerated, challenge: [0x01])
        let error = #expect(throws: WebAuthnError.self) { try check(der) }
        #expect(error?.code == .invalidAttestationStatement)
    }

    @Test(arguments: [true, false])
    func allApplicationsInEitherListIsRefused(_ inSoftwareList: Bool) throws {
        let tee = Self.purposeSign + Self.originGenerated
        let der = inSoftwareList
            ? Self.keyDescription(software: Self.allApplications, tee: tee)
            : Self.keyDescription(software: [], tee: tee + Self.allApplications)
        for policy in [AndroidKeyAttestation.EnforcementPolicy.trustedEnvironmentOnly, .trustedEnvironmentOrSoftware] {
            let error = #expect(throws: WebAuthnError.self) { try check(der, policy) }
            #expect(error?.code == .invalidCertificate)
            #expect(error?.message.contains(inSoftwareList ? "softwareEnforced" : "teeEnforced") == true)
        }
    }

    @Test func softwareOnlyClaimsNeedTheSoftwarePolicy() throws {
        let der = Self.keyDescription(software: Self.purposeSign + Self.originGenerated, tee: [])
        let error = #expect(throws: WebAuthnError.self) { try check(der) }
        #expect(error?.code == .invalidCertificate)
        try check(der, .trustedEnvironmentOrSoftware)
    }

    @Test func conflictingOriginInTheSoftwareListIsRefusedUnderTheSoftwarePolicy() throws {
        let derived = Self.tlv([0xBF, 0x85, 0x3E], Self.tlv([0x02], [0x01]))
        let der = Self.keyDescription(software: derived, tee: Self.purposeSign + Self.originGenerated)
        try check(der)
        let error = #expect(throws: WebAuthnError.self) { try check(der, .trustedEnvironmentOrSoftware) }
        #expect(error?.code == .invalidCertificate)
    }

    @Test func malformedDescriptionsAreRefused() throws {
        let good = Self.keyDescription(software: [], tee: Self.purposeSign + Self.originGenerated)
        for bad in [Array(good.dropLast()), good + [0x00], Self.tlv([0x30], Self.tlv([0x02], [0x03])),
                    Self.keyDescription(software: Self.tlv([0x02], [0x01]), tee: []),
                    Self.keyDescription(software: [], tee: Self.originGenerated + Self.originGenerated)] {
            let error = #expect(throws: WebAuthnError.self) { try AndroidKeyAttestation.KeyDescription(der: bad) }
            #expect(error?.code == .invalidCertificate)
        }
    }
}
