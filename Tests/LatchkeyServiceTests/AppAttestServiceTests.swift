import Foundation
import LatchkeyAuthenticator
@testable import LatchkeyService
import LatchkeyStore
import Testing
import WebAuthn

/// App Attest on the service, with the software App Attest of LatchkeyAuthenticator and its own test CA as the root:
/// a key attested once for a challenge, then asserting over client data that carries a fresh challenge, once each.
@Suite("App Attest service")
struct AppAttestServiceTests {
    static let appID = "ABCDE12345.com.example.app"

    @Test func aKeyIsAttestedOnceAndAssertsOverItsChallengeOnce() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-app-attest-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let stand = AppAttestAuthenticator(keyPath: folder + "/app.json", caFolder: folder + "/ca")
        let root = try X509Certificate(der: try #require(PEM.certificates(in: try String(contentsOfFile: try stand.makeCA(), encoding: .utf8)).first))
        let harness = try ServiceHarness(appAttestRoots: [root]) {
            $0.appAttest = .optional
            $0.appAttestEnvironment = .development
            $0.appleAppIDs = [Self.appID]
        }
        let service = harness.service.appAttestation
        func challenge() async throws -> (text: String, binding: CeremonyBinding) {
            let issued = try await service.challenge(caller: harness.caller(), presented: .none)
            return (Base64URL.encode(issued.challenge), CeremonyBinding(carrier: "the binding", values: issued.bindings))
        }

        let first = try await challenge()
        let reply = Array(try JSONSerialization.data(withJSONObject: ["challenge": first.text]))
        let attestation = try ServiceHarness.decode(
            AppAttestKeyRequest.self, try stand.attest(challengeReply: reply, appID: Self.appID, environment: .development))
        let key = try await service.attest(attestation, caller: harness.caller(), presented: first.binding)
        #expect(key.appID == Self.appID && key.environment == "development")
        let again = await #expect(throws: ServiceError.self) { try await service.attest(attestation, caller: harness.caller(), presented: first.binding) }
        #expect(again?.code == .invalidInput, "its challenge is spent: \(again?.message ?? "")")

        let second = try await challenge()
        let asserted = try stand.assert(body: Array(#"{"action":"pay"}"#.utf8), challenge: second.text)
        let assertion = try ServiceHarness.decode(AppAttestAssertionRequest.self, asserted.assertionRequest)
        let (checked, counter) = try await service.assert(assertion, presented: second.binding)
        #expect(checked.keyID == key.keyID && counter >= 1)
        let replayed = await #expect(throws: ServiceError.self) { try await service.assert(assertion, presented: second.binding) }
        #expect(replayed?.code == .invalidInput, "an assertion's challenge is answered once")
    }
}
