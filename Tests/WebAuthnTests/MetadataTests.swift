import Foundation
import Testing
@testable import WebAuthn

/// A metadata service made in the test: an MDS root, a BLOB signer under it, an authenticator
/// vendor's attestation root and one attestation certificate under that.
struct MetadataFixture {
    static let aaguidText = "4c61746b-6579-4d44-5354-657374303031"
    let aaguid: [UInt8]
    let mdsRoot: TestCertificate
    let signer: TestCertificate
    let attestationRoot: TestCertificate
    let attestationLeaf: TestCertificate

    init(signerKey: TestKey? = nil) throws {
        aaguid = AAGUID.bytes(Self.aaguidText) ?? []
        mdsRoot = try TestCertificate.root("Test MDS Root")
        signer = try mdsRoot.issue("Test MDS BLOB Signer", key: signerKey)
        attestationRoot = try TestCertificate.root("Test Authenticator Attestation Root")
        attestationLeaf = try attestationRoot.issue("Test Authenticator Attestation")
    }

    /// A metadata entry for the fixture's model, with `statuses` as (status, effectiveDate) pairs.
    func entry(statuses: [(String, String?)] = [("FIDO_CERTIFIED_L1", "2023-01-15")], description: String = "Latchkey Test Key") -> [String: Any] {
        [
            "aaguid": Self.aaguidText,
            "metadataStatement": [
                "legalHeader": "test",
                "aaguid": Self.aaguidText,
                "description": description,
                "authenticatorVersion": 5,
                "protocolFamily": "fido2",
                "schema": 3,
                "attestationTypes": ["basic_full"],
                "attestationRootCertificates": [attestationRoot.base64],
                "someFutureMember": ["nested": [1, 2, 3]],
            ] as [String: Any],
            "statusReports": statuses.map { status, date -> [String: Any] in
                var report: [String: Any] = ["status": status]
                if let date { report["effectiveDate"] = date }
                return report
            },
            "timeOfLastStatusChange": statuses.last?.1 ?? "2023-01-15",
            "unknownEntryMember": true,
        ]
    }

    func payload(entries: [[String: Any]]) throws -> [UInt8] {
        let object: [String: Any] = [
            "legalHeader": "Test metadata, not for production.",
            "no": 7,
            "nextUpdate": "2099-12-31",
            "entries": entries,
            "unknownPayloadMember": "ignored",
        ]
        return try [UInt8](JSONSerialization.data(withJSONObject: object))
    }

    /// A compact JWS over `payload` signed by `signer` with `alg`, carrying `chain` as x5c.
    static func jws(alg: String = "ES256", payload: [UInt8], signer: TestCertificate, chain: [TestCertificate]) throws -> String {
        let header: [String: Any] = ["alg": alg, "typ": "JWT", "x5c": chain.map(\.base64)]
        let headerPart = Base64URL.encode(try [UInt8](JSONSerialization.data(withJSONObject: header)))
        let payloadPart = Base64URL.encode(payload)
        let input = Array("\(headerPart).\(payloadPart)".utf8)
        let signature = try signer.key.sign(input, pss: alg.hasPrefix("PS"))
        return "\(headerPart).\(payloadPart).\(Base64URL.encode(signature))"
    }

    func blob(statuses: [(String, String?)] = [("FIDO_CERTIFIED_L1", "2023-01-15")], alg: String = "ES256") throws -> String {
        try Self.jws(alg: alg, payload: payload(entries: [entry(statuses: statuses)]), signer: signer, chain: [signer])
    }

    func service(statuses: [(String, String?)]) throws -> MetadataService {
        MetadataService(blob: try MetadataBLOB.verify(jwt: blob(statuses: statuses), roots: [mdsRoot.certificate]))
    }

    /// Registration trust as a relying party requiring trusted attestation would configure it.
    func trust(_ service: MetadataService) -> AttestationTrust {
        AttestationTrust(policy: AttestationPolicy(mode: .trustedOnly), anchors: service, statusSource: service)
    }

    var basicAttestation: AttestationResult { get throws { AttestationResult(type: .basic, certificates: [try attestationLeaf.certificate]) } }
}

@Suite("FIDO metadata service")
struct MetadataTests {
    @Test func goodBLOBLoadsAndServesItsRootsForTheAAGUID() throws {
        let fixture = try MetadataFixture()
        let blob = try MetadataBLOB.verify(jwt: fixture.blob(), roots: [fixture.mdsRoot.certificate])
        #expect(blob.number == 7)
        #expect(blob.nextUpdate == "2099-12-31")
        #expect(blob.legalHeader == "Test metadata, not for production.")
        #expect(blob.signatureAlgorithm == "ES256")
        #expect(!blob.isOutdated())
        #expect(blob.entries.count == 1)
        let entry = try #require(blob.entries.first)
        #expect(entry.aaguid == fixture.aaguid)
        #expect(entry.metadataStatement?.attestationTypes == ["basic_full"])
        #expect(entry.latestStatusReport()?.status == .fidoCertifiedL1)

        let service = MetadataService(blob: blob)
        #expect(service.anchors(format: "packed", aaguid: fixture.aaguid).map(\.der) == [fixture.attestationRoot.der])
        #expect(service.anchors(format: "packed", aaguid: [UInt8](repeating: 0, count: 16)).isEmpty)
        #expect(service.description(aaguid: fixture.aaguid) == "Latchkey Test Key")
        #expect(service.refusalReason(aaguid: fixture.aaguid, at: nil) == nil)
    }

    @Test(arguments: ["RS256", "PS256"])
    func rsaSignedBLOBLoads(alg: String) throws {
        let fixture = try MetadataFixture(signerKey: TestKey.rsa())
        let blob = try MetadataBLOB.verify(jwt: fixture.blob(alg: alg), roots: [fixture.mdsRoot.certificate])
        #expect(blob.signatureAlgorithm == alg)
        #expect(MetadataService(blob: blob).anchors(format: "packed", aaguid: fixture.aaguid).count == 1)
    }

    @Test func blobWithBadSignatureIsRefused() throws {
        let fixture = try MetadataFixture()
        let parts = try fixture.blob().split(separator: ".").map(String.init)
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[10] ^= 0x01
        let forged = "\(parts[0]).\(parts[1]).\(Base64URL.encode(signature))"
        let error = #expect(throws: WebAuthnError.self) { try MetadataBLOB.verify(jwt: forged, roots: [fixture.mdsRoot.certificate]) }
        #expect(error?.code == .invalidSignature)
    }

    @Test func blobWithChangedPayloadIsRefused() throws {
        let fixture = try MetadataFixture()
        let parts = try fixture.blob(statuses: [("REVOKED", "2024-01-01")]).split(separator: ".").map(String.init)
        let other = try fixture.blob(statuses: [("FIDO_CERTIFIED", "2024-01-01")]).split(separator: ".").map(String.init)
        let spliced = "\(parts[0]).\(other[1]).\(parts[2])"
        let error = #expect(throws: WebAuthnError.self) { try MetadataBLOB.verify(jwt: spliced, roots: [fixture.mdsRoot.certificate]) }
        #expect(error?.code == .invalidSignature)
    }

    @Test func blobWhoseChainLeadsToAnotherRootIsRefused() throws {
        let fixture = try MetadataFixture()
        let otherRoot = try TestCertificate.root("Some Other Root")
        let error = #expect(throws: WebAuthnError.self) { try MetadataBLOB.verify(jwt: fixture.blob(), roots: [otherRoot.certificate]) }
        #expect(error?.code == .untrustedAttestation)
    }

    @Test func selfSignedRootInsideX5cIsNotTrusted() throws {
        let fixture = try MetadataFixture()
        let attackerRoot = try TestCertificate.root("Test MDS Root")  // same name as the real root
        let attackerSigner = try attackerRoot.issue("Test MDS BLOB Signer")
        let payload = try fixture.payload(entries: [fixture.entry()])
        let jwt = try MetadataFixture.jws(payload: payload, signer: attackerSigner, chain: [attackerSigner, attackerRoot])
        let error = #expect(throws: WebAuthnError.self) { try MetadataBLOB.verify(jwt: jwt, roots: [fixture.mdsRoot.certificate]) }
        #expect(error?.code == .untrustedAttestation)
        // The same BLOB loads when its own root is the configured one, so only the root made the difference.
        #expect(throws: Never.self) { try MetadataBLOB.verify(jwt: jwt, roots: [attackerRoot.certificate]) }
    }

    @Test func signerThroughAnIntermediateInX5cVerifies() throws {
        let fixture = try MetadataFixture()
        let intermediate = try fixture.mdsRoot.issue("Test MDS Intermediate", isCA: true, serial: 3)
        let signer = try intermediate.issue("Test MDS BLOB Signer 2")
        let jwt = try MetadataFixture.jws(payload: fixture.payload(entries: [fixture.entry()]), signer: signer, chain: [signer, intermediate])
        #expect(try MetadataBLOB.verify(jwt: jwt, roots: [fixture.mdsRoot.certificate]).entries.count == 1)
        // Without the intermediate the signer cannot be chained.
        let short = try MetadataFixture.jws(payload: fixture.payload(entries: [fixture.entry()]), signer: signer, chain: [signer])
        let error = #expect(throws: WebAuthnError.self) { try MetadataBLOB.verify(jwt: short, roots: [fixture.mdsRoot.certificate]) }
        #expect(error?.code == .untrustedAttestation)
    }

    @Test func noConfiguredRootRefusesTheBLOB() throws {
        let fixture = try MetadataFixture()
        let error = #expect(throws: WebAuthnError.self) { try MetadataBLOB.verify(jwt: fixture.blob(), roots: []) }
        #expect(error?.code == .untrustedAttestation)
    }

    @Test(arguments: ["REVOKED", "ATTESTATION_KEY_COMPROMISE", "USER_VERIFICATION_BYPASS", "USER_KEY_REMOTE_COMPROMISE", "USER_KEY_PHYSICAL_COMPROMISE"])
    func refusedStatusRefusesRegistration(status: String) throws {
        let fixture = try MetadataFixture()
        let service = try fixture.service(statuses: [("FIDO_CERTIFIED_L1", "2022-03-01"), (status, "2024-06-30")])
        let error = #expect(throws: WebAuthnError.self) {
            try fixture.trust(service).evaluate(fixture.basicAttestation, format: "packed", aaguid: fixture.aaguid)
        }
        #expect(error?.code == .untrustedAttestation)
        #expect(error?.message.contains(status) == true)
        #expect(service.status(aaguid: fixture.aaguid)?.rawValue == status)
    }

    @Test func refusedStatusAlsoRefusesSelfAttestation() throws {
        let fixture = try MetadataFixture()
        let service = try fixture.service(statuses: [("REVOKED", "2024-06-30")])
        let trust = AttestationTrust(policy: AttestationPolicy(mode: .selfOrTrusted), anchors: service, statusSource: service)
        let error = #expect(throws: WebAuthnError.self) {
            try trust.evaluate(AttestationResult(type: .self), format: "packed", aaguid: fixture.aaguid)
        }
        #expect(error?.code == .untrustedAttestation)
    }

    @Test(arguments: ["FIDO_CERTIFIED", "FIDO_CERTIFIED_L2", "NOT_FIDO_CERTIFIED", "UPDATE_AVAILABLE", "SELF_ASSERTION_SUBMITTED", "RETIRED", "SOME_FUTURE_STATUS"])
    func acceptedStatusPassesRegistration(status: String) throws {
        let fixture = try MetadataFixture()
        let service = try fixture.service(statuses: [("FIDO_CERTIFIED_L1", "2022-03-01"), (status, "2024-06-30")])
        #expect(try fixture.trust(service).evaluate(fixture.basicAttestation, format: "packed", aaguid: fixture.aaguid) == true)
    }

    @Test func attestationFromAnotherVendorDoesNotChainToTheModelsRoot() throws {
        let fixture = try MetadataFixture()
        let service = try fixture.service(statuses: [("FIDO_CERTIFIED", nil)])
        let stranger = try TestCertificate.root("Stranger Root").issue("Stranger Attestation")
        let error = #expect(throws: WebAuthnError.self) {
            try fixture.trust(service).evaluate(AttestationResult(type: .basic, certificates: [try stranger.certificate]), format: "packed", aaguid: fixture.aaguid)
        }
        #expect(error?.code == .untrustedAttestation)
    }

    @Test func latestReportDecidesAndFutureReportsWait() throws {
        let fixture = try MetadataFixture()
        // Revoked, then certified again later: the later report is in force.
        let recertified = try fixture.service(statuses: [("REVOKED", "2021-01-01"), ("FIDO_CERTIFIED", "2022-01-01")])
        #expect(recertified.refusalReason(aaguid: fixture.aaguid, at: nil) == nil)
        // Listed out of order: the date decides, not the position.
        let outOfOrder = try fixture.service(statuses: [("REVOKED", "2024-01-01"), ("FIDO_CERTIFIED", "2022-01-01")])
        #expect(outOfOrder.refusalReason(aaguid: fixture.aaguid, at: nil)?.contains("REVOKED since 2024-01-01") == true)
        // A revocation dated after the verification time is not yet in force.
        let before = MetadataDate.parse("2023-06-01")
        #expect(outOfOrder.refusalReason(aaguid: fixture.aaguid, at: before) == nil)
    }

    @Test func malformedPayloadIsRefusedWithItsPath() throws {
        let fixture = try MetadataFixture()
        var entry = fixture.entry()
        entry["aaguid"] = "not-an-aaguid"
        let jwt = try MetadataFixture.jws(payload: fixture.payload(entries: [entry]), signer: fixture.signer, chain: [fixture.signer])
        let error = #expect(throws: WebAuthnError.self) { try MetadataBLOB.verify(jwt: jwt, roots: [fixture.mdsRoot.certificate]) }
        #expect(error?.code == .malformedInput)
        #expect(error?.message.contains("entries[0].aaguid") == true)

        var noReports = fixture.entry()
        noReports["statusReports"] = nil
        let missing = try MetadataFixture.jws(payload: fixture.payload(entries: [noReports]), signer: fixture.signer, chain: [fixture.signer])
        let missingError = #expect(throws: WebAuthnError.self) { try MetadataBLOB.verify(jwt: missing, roots: [fixture.mdsRoot.certificate]) }
        #expect(missingError?.code == .malformedInput)
        #expect(missingError?.message.contains("statusReports") == true)
    }

    @Test func malformedJWSIsRefused() throws {
        let fixture = try MetadataFixture()
        let roots = try [fixture.mdsRoot.certificate]
        #expect((#expect(throws: WebAuthnError.self) { try MetadataBLOB.verify(jwt: "a.b", roots: roots) })?.code == .malformedInput)
        let noneHeader = Base64URL.encode(Array(#"{"alg":"none","x5c":[]}"#.utf8))
        #expect((#expect(throws: WebAuthnError.self) { try MetadataBLOB.verify(jwt: "\(noneHeader).e30.", roots: roots) })?.code == .unsupportedAlgorithm)
        let noChain = Base64URL.encode(Array(#"{"alg":"ES256"}"#.utf8))
        #expect((#expect(throws: WebAuthnError.self) { try MetadataBLOB.verify(jwt: "\(noChain).e30.AAAA", roots: roots) })?.code == .malformedInput)
        let badCertificate = Base64URL.encode(Array(#"{"alg":"ES256","x5c":["AAAA"]}"#.utf8))
        #expect((#expect(throws: WebAuthnError.self) { try MetadataBLOB.verify(jwt: "\(badCertificate).e30.AAAA", roots: roots) })?.code == .invalidCertificate)
    }

    @Test func rawECDSASignaturesBecomeDER() throws {
        // r with its high bit set gains a 0x00; s with leading zeros loses them.
        let r = [UInt8](repeating: 0x80, count: 32)
        let s = [UInt8](repeating: 0, count: 31) + [0x05]
        let der = try ECDSASignature.der(fromRaw: r + s, coordinateLength: 32)
        #expect(der == [0x30, 38, 0x02, 33, 0x00] + r + [0x02, 1, 0x05])
        // P-521 halves make a SEQUENCE longer than 127 bytes: long-form length.
        let long = try ECDSASignature.der(fromRaw: [UInt8](repeating: 0x01, count: 132), coordinateLength: 66)
        #expect(Array(long.prefix(3)) == [0x30, 0x81, 136])
        let wrongLength = #expect(throws: WebAuthnError.self) { try ECDSASignature.der(fromRaw: r, coordinateLength: 32) }
        #expect(wrongLength?.code == .invalidSignature)
        let zero = #expect(throws: WebAuthnError.self) { try ECDSASignature.der(fromRaw: [UInt8](repeating: 0, count: 32) + s, coordinateLength: 32) }
        #expect(zero?.code == .invalidSignature)
    }

    @Test func metadataDatesAreStrict() {
        #expect(MetadataDate.parse("1970-01-02") == Date(timeIntervalSince1970: 86_400))
        #expect(MetadataDate.parse("2024-02-29") == Date(timeIntervalSince1970: 1_709_164_800))
        #expect(MetadataDate.parse("2023-02-29") == nil)
        #expect(MetadataDate.parse("2024-13-01") == nil)
        #expect(MetadataDate.parse("2024-1-01") == nil)
    }
}
