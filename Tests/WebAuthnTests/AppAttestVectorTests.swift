import Foundation
import Testing
@testable import WebAuthn

/// One file of `Tests/Vectors/appattest/`: real App Attest data from devices (or a mutation of
/// it) and the verdict it must get (README.md there says where each came from).
struct AppAttestVector: Decodable, Sendable, CustomTestStringConvertible {
    var file = ""
    let kind: String
    let appId: String
    let environment: String
    let keyId: String
    let clientDataHash: String
    let expected: String
    let verifyAt: String?
    let attestationObject: String?
    let assertion: String?
    let publicKey: String?
    let previousCounter: UInt32?
    let counter: UInt32?

    private enum CodingKeys: String, CodingKey {
        case kind, appId, environment, keyId, clientDataHash, expected, verifyAt, attestationObject, assertion, publicKey
        case previousCounter, counter
    }

    var testDescription: String { file }

    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Vectors/appattest")

    static let all: [AppAttestVector] = {
        let files = ((try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? [])
            .filter { $0.pathExtension == "json" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
        return files.compactMap { url in
            guard let data = try? Data(contentsOf: url), var vector = try? JSONDecoder().decode(AppAttestVector.self, from: data) else { return nil }
            vector.file = url.lastPathComponent
            return vector
        }
    }()

    static var root: X509Certificate {
        get throws {
            let pem = try String(contentsOf: directory.appendingPathComponent("apple-app-attestation-root-ca.pem"), encoding: .utf8)
            return try X509Certificate(der: PEM.certificates(in: pem)[0])
        }
    }

    func bytes(_ text: String?) -> [UInt8] { text.flatMap(Base64URL.decode) ?? [] }

    var time: Date? { verifyAt.flatMap { ISO8601DateFormatter().date(from: $0) } }

    /// Verifies the vector as a server would, with both environments accepted.
    func verify(environments: Set<AppAttestEnvironment> = Set(AppAttestEnvironment.allCases)) throws -> AppAttestedKey? {
        if kind == "attestation" {
            let verifier = AppAttestAttestationVerifier(appIDs: [appId], environments: environments, anchors: [try Self.root], verificationTime: time)
            return try verifier.verify(attestationObject: bytes(attestationObject), keyID: bytes(keyId), clientDataHash: bytes(clientDataHash))
        }
        let counter = try AppAttestAssertionVerifier(appIDs: [appId]).verify(
            assertion: bytes(assertion), publicKey: bytes(publicKey), clientDataHash: bytes(clientDataHash), counters: AppAttestCounters(highest: previousCounter ?? 0))
        #expect(counter == self.counter)
        return nil
    }
}

@Suite("App Attest vectors")
struct AppAttestVectorTests {
    @Test func everyFileLoads() {
        #expect(AppAttestVector.all.count == 34)
        #expect(AppAttestVector.all.filter { $0.expected == "verify" }.count == 27)
    }

    @Test(arguments: AppAttestVector.all.filter { $0.expected == "verify" })
    func realDeviceDataVerifies(_ vector: AppAttestVector) throws {
        let key = try vector.verify()
        if let key {
            #expect(key.environment.rawValue == vector.environment)
            #expect(key.keyID == vector.bytes(vector.keyId))
            #expect(Digest.sha256(key.publicKey) == key.keyID)
            #expect(!key.receipt.isEmpty)
        }
    }

    /// Each negative variant fails at the check its mutation breaks (README: "fails at").
    @Test(arguments: [
        ("neg-kayak-authdata-byte-flipped.json", "nonce"), ("neg-kayak-wrong-appid.json", "RP ID hash"),
        ("neg-kayak-keyid-mismatch.json", "key ID"), ("neg-kayak-expired-verifyat.json", "certificate chain"),
        ("neg-kayak-assertion-wrong-clientdata.json", "App Attest assertion: the signature does not verify"), ("neg-kayak-assertion-counter-replay.json", "counter"),
        ("neg-apple-doc-hashed-challenge.json", "nonce"),
    ])
    func mutatedDataFailsWhereItWasBroken(file: String, check: String) throws {
        let vector = try #require(AppAttestVector.all.first { $0.file == file })
        #expect(vector.expected == "fail")
        let error = #expect(throws: WebAuthnError.self) { _ = try vector.verify() }
        #expect(error?.message.contains(check) == true, "\(file): \(error?.message ?? "")")
    }

    /// A receipt that is missing and one that is not a byte string are told apart.
    @Test(arguments: [(CBORValue?.none, "attStmt has no receipt"), (.unsigned(5), "attStmt.receipt is not a byte string")])
    func theReceiptMustBeAByteString(receipt: CBORValue?, problem: String) throws {
        let vector = try #require(AppAttestVector.all.first { $0.file == "webauthn4j-kayak-prod-attestation.json" })
        guard case .map(let entries) = try CBORDecoder().decode(vector.bytes(vector.attestationObject)) else { Issue.record("not a map"); return }
        let changed = entries.map { entry -> CBORMapEntry in
            guard entry.key == .text("attStmt"), case .map(let statement) = entry.value else { return entry }
            let kept = statement.filter { $0.key != .text("receipt") } + (receipt.map { [CBORMapEntry(key: .text("receipt"), value: $0)] } ?? [])
            return CBORMapEntry(key: entry.key, value: .map(kept))
        }
        let verifier = AppAttestAttestationVerifier(appIDs: [vector.appId], environments: [.production], anchors: [try AppAttestVector.root], verificationTime: vector.time)
        let error = #expect(throws: WebAuthnError.self) {
            _ = try verifier.verify(
                attestationObject: CBOREncoder.encode(.map(changed)), keyID: vector.bytes(vector.keyId), clientDataHash: vector.bytes(vector.clientDataHash))
        }
        #expect(error?.message == "App Attest attestation: \(problem)")
    }

    @Test func anEnvironmentTheServerDoesNotAcceptIsRefused() throws {
        let development = try #require(AppAttestVector.all.first { $0.file == "bas-d-dev-attestation.json" })
        let error = #expect(throws: WebAuthnError.self) { _ = try development.verify(environments: [.production]) }
        #expect(error?.message.contains("development environment") == true, "\(error?.message ?? "")")
        let production = try #require(AppAttestVector.all.first { $0.file == "webauthn4j-kayak-prod-attestation.json" })
        #expect(try production.verify(environments: [.production])?.environment == .production)
    }

    @Test func theRootIsNeverTakenFromTheRequest() throws {
        let vector = try #require(AppAttestVector.all.first { $0.file == "webauthn4j-kayak-prod-attestation.json" })
        let verifier = AppAttestAttestationVerifier(appIDs: [vector.appId], environments: [.production], anchors: [], verificationTime: vector.time)
        let error = #expect(throws: WebAuthnError.self) {
            _ = try verifier.verify(
                attestationObject: vector.bytes(vector.attestationObject), keyID: vector.bytes(vector.keyId),
                clientDataHash: vector.bytes(vector.clientDataHash))
        }
        #expect(error?.code == .untrustedAttestation)
    }
}

/// Assertions sent at once reach the server out of order: each counter is accepted once, in any order, within the window.
@Suite("App Attest counters")
struct AppAttestCountersTests {
    @Test func everyCounterIsAcceptedOnceInAnyOrderWithinTheWindow() throws {
        var counters = AppAttestCounters(highest: 0)
        #expect(counters.accepting(0) == nil, "the attestation's counter")
        for counter: UInt32 in [3, 1, 10, 2, 9, 4, 5, 8, 6, 7] {
            counters = try #require(counters.accepting(counter), "\(counter)")
        }
        #expect(counters.highest == 10)
        for counter: UInt32 in 0...10 {
            #expect(counters.accepting(counter) == nil, "\(counter) again")
            #expect(counters.refusal(of: counter).hasSuffix("was accepted before (an assertion is accepted once)"))
        }
        #expect(counters.accepting(11)?.highest == 11)
    }

    @Test func aCounterTooFarBelowTheHighestIsRefused() throws {
        let counters = try #require(AppAttestCounters(highest: 5).accepting(100))
        #expect(counters.accepting(37) != nil, "63 below")
        #expect(counters.accepting(36) == nil, "64 below")
        #expect(counters.refusal(of: 36) == "App Attest assertion: the counter 36 is 64 or more below the highest accepted, 100")
        // A jump of the width or more forgets everything below; the stored bit pattern reads back the same.
        let jumped = try #require(counters.accepting(UInt32.max))
        #expect(jumped == AppAttestCounters(highest: UInt32.max, accepted: 1))
        let stored = try #require(jumped.accepting(UInt32.max - 63))
        #expect(AppAttestCounters(highest: stored.highest, accepted: stored.accepted) == stored)
        #expect(stored.accepting(UInt32.max - 63) == nil)
    }
}
