import Foundation
import Testing
@testable import WebAuthn

/// Attestation chains built at test time: a root made by the test is the only trust anchor, and
/// registrations signed by certificates under it (or not) are judged by `RegistrationVerifier`.
@Suite("Attestation certificate chains")
struct AttestationChainTests {
    static let rpID = "example.com"
    static let relyingParty = RelyingParty(id: rpID, name: "Example", origins: ["https://example.com"])
    static let aaguid: [UInt8] = Array(0x10..<0x20)

    /// A registration whose packed (or other) statement is built by `statement` from the signed bytes.
    struct Registration {
        let response: RegistrationResponse
        let challenge: [UInt8]
    }

    static func registration(
        format: String = "packed", aaguid: [UInt8] = aaguid, credentialKey: TestKey? = nil,
        statement: (_ signedBytes: [UInt8], _ credentialKey: TestKey) throws -> CBORValue
    ) throws -> Registration {
        let key = try credentialKey ?? TestKey.p256()
        let challenge = try SecureRandom.bytes(count: 32)
        let credentialID = try SecureRandom.bytes(count: 16)
        let clientDataJSON = Array(#"{"type":"webauthn.create","challenge":"\#(Base64URL.encode(challenge))","origin":"https://example.com"}"#.utf8)
        let authenticatorData = Digest.sha256(Array(rpID.utf8)) + [0x45, 0, 0, 0, 0] + aaguid
            + [0, UInt8(credentialID.count)] + credentialID + (try key.coseKey())
        let signedBytes = authenticatorData + Digest.sha256(clientDataJSON)
        let object = CBORValue.map([
            CBORMapEntry(key: .text("fmt"), value: .text(format)),
            CBORMapEntry(key: .text("attStmt"), value: try statement(signedBytes, key)),
            CBORMapEntry(key: .text("authData"), value: .bytes(authenticatorData)),
        ])
        return Registration(
            response: RegistrationResponse(credentialID: credentialID, clientDataJSON: clientDataJSON, attestationObject: CBOREncoder.encode(object)),
            challenge: challenge)
    }

    /// A packed statement signed by `leaf`, carrying `chain` as x5c.
    static func packed(signedBy leaf: TestCertificate, chain: [TestCertificate]) -> (_ signed: [UInt8], _ key: TestKey) throws -> CBORValue {
        { signed, _ in
            .map([
                CBORMapEntry(key: .text("alg"), value: .negative(6)),
                CBORMapEntry(key: .text("sig"), value: .bytes(try leaf.key.signDER(signed))),
                CBORMapEntry(key: .text("x5c"), value: .array(chain.map { .bytes($0.der) })),
            ])
        }
    }

    func verify(
        _ registration: Registration, anchors: [TestCertificate], at time: Date? = nil,
        policy: AttestationPolicy = AttestationPolicy(mode: .trustedOnly), modelAnchors: [TestCertificate] = []
    ) throws -> VerifiedRegistration {
        let trust = AttestationTrust(
            policy: policy, anchors: TrustAnchors(try anchors.map { try $0.certificate }),
            modelAnchors: TrustAnchors(try modelAnchors.map { try $0.certificate }), verificationTime: time)
        return try RegistrationVerifier(relyingParty: Self.relyingParty, trust: trust)
            .verify(registration.response, expecting: RegistrationExpectation(challenge: registration.challenge, userVerification: .preferred))
    }

    func expectRefused(_ registration: Registration, anchors: [TestCertificate], at time: Date? = nil, code: WebAuthnError.Code, mentioning text: String) {
        let error = #expect(throws: WebAuthnError.self) { try verify(registration, anchors: anchors, at: time) }
        #expect(error?.code == code, "got \(error.map { "\($0.code): \($0.message)" } ?? "no error")")
        #expect(error?.message.contains(text) == true, "message: \(error?.message ?? "")")
    }

    @Test func chainThroughAnIntermediateToTheConfiguredRootIsTrusted() throws {
        let root = try TestCertificate.root("Latchkey Test Root")
        let intermediate = try root.issue("Latchkey Test Intermediate", isCA: true)
        let leaf = try intermediate.issueAttestation(aaguid: Self.aaguid)
        let registration = try Self.registration(statement: Self.packed(signedBy: leaf, chain: [leaf, intermediate]))
        let verified = try verify(registration, anchors: [root])
        #expect(verified.attestationTrusted)
        #expect(verified.attestation.type == .basic)
        #expect(verified.attestation.trustPath == [leaf.der, intermediate.der])
        // Without the intermediate the path cannot be built.
        let broken = try Self.registration(statement: Self.packed(signedBy: leaf, chain: [leaf]))
        expectRefused(broken, anchors: [root], code: .untrustedAttestation, mentioning: "does not verify")
    }

    @Test func aRootCarriedInsideX5CIsNeverTrusted() throws {
        let configuredRoot = try TestCertificate.root("Latchkey Test Root")
        // An attacker's root with the very same name, shipped inside x5c with its leaf.
        let attackerRoot = try TestCertificate.root("Latchkey Test Root")
        let leaf = try attackerRoot.issueAttestation(aaguid: Self.aaguid)
        let registration = try Self.registration(statement: Self.packed(signedBy: leaf, chain: [leaf, attackerRoot]))
        expectRefused(registration, anchors: [configuredRoot], code: .untrustedAttestation, mentioning: "does not verify")
        // With no anchors configured the strict policy refuses too, rather than skipping the check.
        expectRefused(registration, anchors: [], code: .untrustedAttestation, mentioning: "no trust anchors")
    }

    @Test func anExpiredChainIsRefusedAtTheRealTimeButAcceptedInsideItsWindow() throws {
        let root = try TestCertificate.root("Latchkey Test Root")
        // Inside the root's validity (it starts a day ago), ended an hour ago.
        let start = Date().addingTimeInterval(-20 * 3_600)
        let end = Date().addingTimeInterval(-3_600)
        let leaf = try root.issueAttestation(aaguid: Self.aaguid, validity: start...end)
        let registration = try Self.registration(statement: Self.packed(signedBy: leaf, chain: [leaf]))
        expectRefused(registration, anchors: [root], code: .untrustedAttestation, mentioning: "expired")
        // Captured data is checked at a fixed time inside the validity window.
        #expect(try verify(registration, anchors: [root], at: start.addingTimeInterval(3_600)).attestationTrusted)
    }

    @Test func aLeafWithoutTheRequiredSubjectIsRefused() throws {
        let root = try TestCertificate.root("Latchkey Test Root")
        let leaf = try root.issueAttestation(organizationalUnit: nil, aaguid: Self.aaguid)
        let registration = try Self.registration(statement: Self.packed(signedBy: leaf, chain: [leaf]))
        expectRefused(registration, anchors: [root], code: .invalidCertificate, mentioning: "Authenticator Attestation")
    }

    @Test func anAppleLeafWithoutTheNonceExtensionIsRefused() throws {
        let root = try TestCertificate.root("Latchkey Test Apple Root")
        let credentialKey = try TestKey.p256()
        let leaf = try root.issueAttestation(key: credentialKey, aaguid: nil)
        let registration = try Self.registration(format: "apple", credentialKey: credentialKey) { _, _ in
            .map([CBORMapEntry(key: .text("x5c"), value: .array([.bytes(leaf.der)]))])
        }
        let error = #expect(throws: WebAuthnError.self) { try verify(registration, anchors: [root]) }
        #expect(error?.code == .invalidCertificate, "got \(error?.message ?? "no error")")
        #expect(error?.message.contains("no nonce extension 1.2.840.113635.100.8.2") == true, "message: \(error?.message ?? "")")
    }

    @Test func aLeafWhoseAAGUIDDiffersFromTheAuthenticatorDataIsRefused() throws {
        let root = try TestCertificate.root("Latchkey Test Root")
        let leaf = try root.issueAttestation(aaguid: [UInt8](repeating: 0xEE, count: 16))
        let registration = try Self.registration(statement: Self.packed(signedBy: leaf, chain: [leaf]))
        expectRefused(registration, anchors: [root], code: .invalidCertificate, mentioning: "AAGUID")
    }

    @Test func aSignatureByAnotherKeyIsRefused() throws {
        let root = try TestCertificate.root("Latchkey Test Root")
        let leaf = try root.issueAttestation(aaguid: Self.aaguid)
        let other = try root.issueAttestation(aaguid: Self.aaguid, serial: 9)
        let registration = try Self.registration(statement: Self.packed(signedBy: other, chain: [leaf]))
        expectRefused(registration, anchors: [root], code: .invalidSignature, mentioning: "does not verify")
    }

    @Test func anAllowListAdmitsOnlyModelsACertificateVouchesFor() throws {
        let root = try TestCertificate.root("Latchkey Test Vendor Root")
        let allowOurModel = AttestationPolicy(mode: .trustedOnly, allowedAAGUIDs: [Self.aaguid])
        // The leaf names the model: attested.
        let named = try root.issueAttestation(aaguid: Self.aaguid)
        let attested = try Self.registration(statement: Self.packed(signedBy: named, chain: [named]))
        #expect(try verify(attested, anchors: [root], policy: allowOurModel).attestationTrusted)
        // A trusted chain whose leaf does not name a model cannot claim an allowed AAGUID (the
        // android-key case: the authenticator data AAGUID is not covered by any certificate).
        let unnamed = try root.issueAttestation(aaguid: nil)
        let claimed = try Self.registration(statement: Self.packed(signedBy: unnamed, chain: [unnamed]))
        let error = #expect(throws: WebAuthnError.self) { try verify(claimed, anchors: [root], policy: allowOurModel) }
        #expect(error?.code == .untrustedAttestation)
        #expect(error?.message.contains("no certificate vouches") == true, "message: \(error?.message ?? "")")
        // Roots that belong to this model alone (FIDO metadata) vouch for it even without the extension.
        #expect(try verify(claimed, anchors: [], policy: allowOurModel, modelAnchors: [root]).attestationTrusted)
    }

    @Test func formatScopedAnchorsDoNotVouchForOtherFormats() throws {
        let root = try TestCertificate.root("Latchkey Test Apple-only Root")
        let leaf = try root.issueAttestation(aaguid: Self.aaguid)
        let registration = try Self.registration(statement: Self.packed(signedBy: leaf, chain: [leaf]))
        let appleOnly = AttestationTrust(
            policy: AttestationPolicy(mode: .trustedOnly), anchors: TrustAnchors([], byFormat: ["apple": [try root.certificate]]))
        let error = #expect(throws: WebAuthnError.self) {
            try RegistrationVerifier(relyingParty: Self.relyingParty, trust: appleOnly)
                .verify(registration.response, expecting: RegistrationExpectation(challenge: registration.challenge, userVerification: .preferred))
        }
        #expect(error?.message.contains("no trust anchors") == true, "message: \(error?.message ?? "")")
    }

    @Test func anchorFoldersScopeSubfoldersToTheirFormat() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-anchors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("apple"), withIntermediateDirectories: true)
        func pem(_ certificate: TestCertificate) -> String {
            "-----BEGIN CERTIFICATE-----\n\(certificate.base64)\n-----END CERTIFICATE-----\n"
        }
        try pem(TestCertificate.root("Every Format")).write(to: folder.appendingPathComponent("any.pem"), atomically: true, encoding: .utf8)
        try pem(TestCertificate.root("Apple Only")).write(to: folder.appendingPathComponent("apple/root.pem"), atomically: true, encoding: .utf8)
        try "not a certificate".write(to: folder.appendingPathComponent("apple/README.txt"), atomically: true, encoding: .utf8)
        let anchors = try TrustAnchors.load(directories: [folder.path, folder.appendingPathComponent("missing").path])
        #expect(anchors.anchors(format: "packed", aaguid: []).count == 1)
        #expect(anchors.anchors(format: "apple", aaguid: []).count == 2)
        try "garbage".write(to: folder.appendingPathComponent("broken.pem"), atomically: true, encoding: .utf8)
        #expect(throws: WebAuthnError.self) { try TrustAnchors.load(directories: [folder.path]) }
    }
}
