import Foundation
import LatchkeyAuthenticator
import Testing
import WebAuthn

/// What `latchkey authenticator app-attest` makes, checked by the core's App Attest verifiers
/// (the ones that pass Apple's real device samples) with the stand-in's CA as the root.
@Suite("App Attest stand-in")
struct AppAttestStandInTests {
    static let appID = "ABCDE12345.com.example.app"

    @Test func itsAttestationAndAssertionsVerifyAgainstItsCAAndNoOtherRoot() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-app-attest-\(UUID().uuidString)").path
        let stand = AppAttestAuthenticator(keyPath: folder + "/app.json", caFolder: folder + "/ca")
        let challenge = try SecureRandom.bytes(count: 32)
        let reply = Array(#"{"challenge":"\#(Base64URL.encode(challenge))"}"#.utf8)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(try stand.attest(challengeReply: reply, appID: Self.appID, environment: .production))) as? [String: String])
        let keyID = try #require(body["keyId"].flatMap(Base64URL.decode))
        let attestationObject = try #require(body["attestationObject"].flatMap(Base64URL.decode))
        let root = try X509Certificate(der: try #require(PEM.certificates(in: try String(contentsOfFile: stand.rootPath, encoding: .utf8)).first))

        let verifier = AppAttestAttestationVerifier(appIDs: [Self.appID], environments: [.production], anchors: [root])
        let key = try verifier.verify(attestationObject: attestationObject, keyID: keyID, clientDataHash: Digest.sha256(challenge))
        #expect(key.environment == .production && key.appID == Self.appID)
        let apple = try X509Certificate(der: try #require(PEM.certificates(in: try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Config/roots/apple-appattest/apple-app-attestation-root-ca.pem"), encoding: .utf8)).first))
        #expect(throws: WebAuthnError.self, "Apple's root does not vouch for the stand-in") {
            try AppAttestAttestationVerifier(appIDs: [Self.appID], environments: [.production], anchors: [apple])
                .verify(attestationObject: attestationObject, keyID: keyID, clientDataHash: Digest.sha256(challenge))
        }

        let assertionVerifier = AppAttestAssertionVerifier(appIDs: [Self.appID])
        var counters = AppAttestCounters(highest: 0)
        var counter: UInt32 = 0
        for _ in 0..<2 {
            let asserted = try stand.assert(body: Array(#"{"a":1}"#.utf8), challenge: Base64URL.encode(challenge))
            let parts = asserted.header.split(separator: ".")
            #expect(parts.count == 2 && Base64URL.decode(String(parts[0])) == keyID)
            let assertion = try #require(Base64URL.decode(String(parts[1])))
            counter = try assertionVerifier.verify(
                assertion: assertion, publicKey: key.publicKey, clientDataHash: Digest.sha256(asserted.body), counters: counters)
            counters = try #require(counters.accepting(counter))
        }
        #expect(counter == 2)
    }
}
