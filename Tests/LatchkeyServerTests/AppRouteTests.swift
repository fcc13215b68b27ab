import Foundation
import HTTPTypes
import LatchkeyAuthenticator
import LatchkeyServer
@testable import LatchkeyService
import Testing
import WebAuthn

/// The routes an iOS app uses beside passkeys: device keys (a Secure Enclave key of the app) and
/// App Attest, driven by the software stand-ins of `latchkey authenticator`.
@Suite("App routes")
struct AppRouteTests {
    static let appID = "ABCDE12345.com.example.app"

    /// A fresh folder for key files and a test CA.
    static func folder() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-app-routes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    static func data(_ reply: RouteReply) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: reply.json))
    }

    static func json(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    /// Registers grace with a passkey and enrolls a device key for her: her session's bearer token, the key's ID, the key.
    static func enrolDeviceKey(_ client: RouteClient, folder: String) async throws
        -> (bearer: String, keyID: String, key: DeviceKeyAuthenticator)
    {
        let registered = try await client.register("grace", with: TestAuthenticator())
        let bearer = try #require(registered.json["sessionToken"] as? String)
        let phone = DeviceKeyAuthenticator(keyPath: folder + "/phone.pem")
        let options = try await client.post("/device-keys/options", [:], bearer: bearer)
        let enrolled = try await client.post("/device-keys", try json(try phone.enroll(options: try data(options))), bearer: bearer)
        #expect(enrolled.status == .created, "\(enrolled.text)")
        return (bearer, try #require(enrolled.json["keyId"] as? String), phone)
    }

    @Test func aDeviceKeySignsInOncePerChallengeWithItsOwnSignatureWhileEnrolled() async throws {
        let folder = try Self.folder()
        let harness = try RouteHarness()
        try await harness.run { client in
            let (enrolledBearer, keyID, phone) = try await Self.enrolDeviceKey(client, folder: folder)
            var bearer = enrolledBearer

            func signInAttempt(_ key: DeviceKeyAuthenticator) async throws -> [String: Any] {
                let options = try await client.post("/device-keys/sign-in/options", ["keyId": keyID])
                return try Self.json(try key.signIn(options: try Self.data(options)))
            }
            let attempt = try await signInAttempt(phone)
            let signedIn = try await client.post("/device-keys/sign-in", attempt, bearer: bearer)
            #expect(signedIn.isOK && signedIn.json["username"] as? String == "grace", "\(signedIn.text)")
            // The session the request carried ends, as with a passkey sign-in.
            #expect(try await client.send(.get, "/session", headers: [.authorization: "Bearer \(bearer)"]).status == .unauthorized)
            bearer = try #require(signedIn.json["sessionToken"] as? String)
            let replayed = try await client.post("/device-keys/sign-in", attempt)
            #expect(replayed.status == .badRequest && replayed.text.contains("challenge"), "\(replayed.text)")

            // Another key's signature. (A signature for another purpose: Tests/e2e/test_device_keys.py.)
            let stranger = DeviceKeyAuthenticator(keyPath: folder + "/stranger.pem")
            _ = try stranger.enroll(options: try Self.data(try await client.post("/device-keys/options", [:], bearer: bearer)))
            var forged = try await signInAttempt(stranger)
            forged["keyId"] = keyID
            #expect(try await client.post("/device-keys/sign-in", forged).status == .badRequest)
            // The phone removes its own key: the session the key signed in ends with it.
            #expect(try await client.send(.get, "/session", headers: [.authorization: "Bearer \(bearer)"]).isOK)
            #expect(try await client.send(.delete, "/device-keys/\(keyID)", headers: [.authorization: "Bearer \(bearer)"]).isOK)
            #expect(try await client.send(.get, "/session", headers: [.authorization: "Bearer \(bearer)"]).status == .unauthorized)
            let removed = try await client.post("/device-keys/sign-in/options", ["keyId": keyID])
            #expect(removed.status == .badRequest && removed.json["reason"] as? String == "unknownDeviceKey", "\(removed.text)")
        }
    }

    @Test func aDeviceKeyRenameIsASecurityEventWithTheNewName() async throws {
        let folder = try Self.folder()
        let harness = try RouteHarness()
        let key = try await AdminKeys.create(named: "tests", in: harness.store)
        try await harness.run { client in
            let (bearer, keyID, _) = try await Self.enrolDeviceKey(client, folder: folder)
            func rename(_ id: String, to name: String) async throws -> RouteReply {
                try await client.send(.patch, "/device-keys/\(id)", json: ["name": name], headers: [.authorization: "Bearer \(bearer)"])
            }

            #expect(try await rename("AAAA", to: "Nobody's").status == .notFound)
            #expect(try await client.adminEvents("device_key.renamed", key: key).isEmpty, "nothing renamed, nothing recorded")
            let renamed = try await rename(keyID, to: "Grace \"phone\"")
            #expect(renamed.status == .ok, "\(renamed.text)")
            #expect(try await rename(keyID, to: "").status == .ok)
            #expect(try await rename(keyID, to: "Grace").status == .ok)
            let nulled = try await client.send(.patch, "/device-keys/\(keyID)", raw: #"{"name":null}"#, headers: [.authorization: "Bearer \(bearer)"])
            #expect(nulled.status == .ok && (nulled.json["deviceKey"] as? [String: Any])?["name"] is NSNull, "\(nulled.text)")

            let events = try await client.adminEvents("device_key.renamed", key: key)
            #expect(events.map { $0["detail"] as? String } == [
                "name removed", #"renamed to "Grace""#, "name removed", #"renamed to "Grace \"phone\"""#,
            ])
            #expect(events.allSatisfy { $0["credentialId"] as? String == keyID && ($0["actor"] as? [String: Any])?["type"] as? String == "user" })
            #expect((events.first?["user"] as? [String: Any])?["username"] as? String == "grace")
        }
    }

    @Test func appAttestRequiredRefusesAnUnattestedRegistrationAndAdmitsAnAttestedOne() async throws {
        let folder = try Self.folder()
        let stand = AppAttestAuthenticator(keyPath: folder + "/app.json", caFolder: folder + "/ca")
        let root = try X509Certificate(der: try #require(PEM.certificates(in: try String(contentsOfFile: try stand.makeCA(), encoding: .utf8)).first))
        let harness = try RouteHarness(appAttestRoots: [root]) {
            $0.appAttest = .required
            $0.appAttestEnvironment = .development
        }
        try await harness.run { client in
            let unattested = try await client.post("/attestation/options", ["username": "heidi"])
            #expect(unattested.status == .forbidden && unattested.text.contains("App Attest is required"), "\(unattested.text)")

            let challenge = try await client.post("/app-attest/challenge", [:])
            let attestation = try Self.json(try stand.attest(challengeReply: try Self.data(challenge), appID: Self.appID, environment: .development))
            let attested = try await client.post("/app-attest/keys", attestation)
            #expect(attested.status == .created && attested.json["environment"] as? String == "development", "\(attested.text)")

            func asserted(_ body: String) async throws -> AppAttestAuthenticator.AssertedRequest {
                let challenge = try #require(try await client.post("/app-attest/challenge", [:]).json["challenge"] as? String)
                return try stand.assert(body: Array(body.utf8), challenge: challenge)
            }
            let request = try await asserted(#"{"username":"heidi"}"#)
            let headers: HTTPFields = [HTTPField.Name("X-Latchkey-App-Attest")!: request.header]
            let options = try await client.send(.post, "/attestation/options", raw: String(decoding: request.body, as: UTF8.self), headers: headers)
            #expect(options.isOK, "\(options.text)")
            let replayed = try await client.send(.post, "/attestation/options", raw: String(decoding: request.body, as: UTF8.self), headers: headers)
            #expect(replayed.status == .badRequest, "\(replayed.text)")

            // The assertion covers the exact body.
            let other = try await asserted(#"{"username":"ivan"}"#)
            let tampered = String(decoding: other.body, as: UTF8.self).replacingOccurrences(of: "ivan", with: "mallory")
            let refused = try await client.send(
                .post, "/attestation/options", raw: tampered, headers: [HTTPField.Name("X-Latchkey-App-Attest")!: other.header])
            #expect(refused.status == .badRequest && refused.text.contains("signature"), "\(refused.text)")
        }
    }
}
