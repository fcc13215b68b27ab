import Foundation
import HTTPTypes
import Testing
import WebAuthn

/// The ceremony routes end to end in process: real SQLite, real signatures, no socket.
@Suite("Ceremony routes")
struct CeremonyRouteTests {
    @Test func registrationSignsTheNewUserInAndTheSessionKnowsThem() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let authenticator = TestAuthenticator()
            let registered = try await client.register("alice", with: authenticator)
            #expect(registered.isOK, "\(registered.text)")
            #expect(registered.json["attestationFormat"] as? String == "none")
            #expect(registered.json["attestationType"] as? String == "none")
            let token = try #require(registered.json["sessionToken"] as? String)

            // A lower-case scheme is still a bearer token.
            let session = try await client.send(.get, "/session", headers: [.authorization: "bearer \(token)"])
            #expect(session.isOK, "\(session.text)")
            #expect(session.json["username"] as? String == "alice")
            #expect(session.json["displayName"] as? String == "Alice")
            #expect(session.json["passkeys"] as? Int == 1)
            #expect((session.json["userHandle"] as? String).flatMap(Base64URL.decode)?.count == 64)

            // Only the known transports were kept.
            let stored = try #require(try await harness.store.credential(id: authenticator.credentials[0].id))
            #expect(stored.transports == [.internal, .hybrid])
            #expect(stored.residentKey == true)
        }
    }

    @Test func signInWithAndWithoutUsernameStartsASession() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let authenticator = TestAuthenticator()
            #expect(try await client.register("bob", with: authenticator).isOK)

            let named = try await client.signIn("bob", with: authenticator)
            #expect(named.isOK, "\(named.text)")
            #expect(named.json["username"] as? String == "bob")
            let usernameless = try await client.signIn(nil, with: authenticator)
            #expect(usernameless.isOK, "\(usernameless.text)")
            let token = try #require(usernameless.json["sessionToken"] as? String)
            #expect(try await client.send(.get, "/session", headers: [.authorization: "Bearer \(token)"]).isOK)

            // The counter and last use were recorded in the same transaction as the session.
            let stored = try #require(try await harness.store.credential(id: authenticator.credentials[0].id))
            #expect(stored.signCount == 2)
            #expect(stored.lastUsedAt != nil)
        }
    }

    @Test func logoutEndsTheSessionAtOnce() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let registered = try await client.register("carol", with: TestAuthenticator())
            let token = try #require(registered.json["sessionToken"] as? String)
            let bearer: HTTPFields = [.authorization: "Bearer \(token)"]
            #expect(try await client.send(.post, "/session/logout", headers: bearer).isOK)
            let after = try await client.send(.get, "/session", headers: bearer)
            #expect(after.status == .unauthorized && after.isFailure)
        }
    }

    @Test func aChallengeIsAnsweredOnce() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let authenticator = TestAuthenticator()
            #expect(try await client.register("dave", with: authenticator).isOK)
            let options = try await client.post("/assertion/options", ["username": "dave"])
            let assertion = try authenticator.assert(options.json)
            #expect(try await client.post("/assertion/result", assertion).isOK)
            let replay = try await client.post("/assertion/result", assertion)
            #expect(replay.status == .badRequest)
            #expect(replay.errorMessage.contains("already used"), "\(replay.errorMessage)")
        }
    }

    @Test func aWrongOriginIsRefusedAndSpendsTheChallenge() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let authenticator = TestAuthenticator()
            #expect(try await client.register("erin", with: authenticator).isOK)
            let options = try await client.post("/assertion/options", ["username": "erin"])
            let forged = try await client.post("/assertion/result", try authenticator.assert(options.json, clientDataOrigin: "https://evil.example"))
            #expect(forged.status == .badRequest)
            #expect(forged.errorMessage.contains("evil.example"), "\(forged.errorMessage)")
        }
    }

    @Test func anExistingUsernameNeedsItsOwnersSession() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let first = TestAuthenticator()
            let registered = try await client.register("frank", with: first)
            let token = try #require(registered.json["sessionToken"] as? String)

            let stranger = try await client.post("/attestation/options", ["username": "frank"])
            #expect(stranger.status == .forbidden && stranger.isFailure)

            let owner = try await client.post("/attestation/options", ["username": "frank"], bearer: token)
            #expect(owner.isOK, "\(owner.text)")
            let excluded = owner.json["excludeCredentials"] as? [[String: Any]] ?? []
            #expect(excluded.compactMap { $0["id"] as? String } == [Base64URL.encode(first.credentials[0].id)])
            // The result needs the session too: once it has ended, a registration under way stops.
            // Sent without it, the reply says to send it; with a session that has ended, that it ended.
            let unsigned = try await client.post("/attestation/result", try first.register(owner.json))
            #expect(unsigned.status == .forbidden && unsigned.errorMessage.contains("needs that user's session with the result too"), "\(unsigned.text)")
            let another = try await client.post("/attestation/options", ["username": "frank"], bearer: token)
            let ended = try await client.post("/attestation/result", try first.register(another.json), bearer: Base64URL.encode(Array(repeating: 7, count: 32)))
            #expect(ended.status == .forbidden && ended.errorMessage.contains("and it has ended"), "\(ended.text)")
            let again = try await client.post("/attestation/options", ["username": "frank"], bearer: token)
            let second = try await client.post("/attestation/result", try first.register(again.json), bearer: token)
            #expect(second.isOK, "\(second.text)")
            #expect(second.json["sessionToken"] == nil, "adding a passkey does not start a new session")
            #expect(try await harness.store.credentials(ofUser: first.credentials[0].userHandle).count == 2)
        }
    }

    @Test func unknownUsernameIs404AndUnknownCredential400() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let unknown = try await client.post("/assertion/options", ["username": "nobody"])
            #expect(unknown.status == .notFound && unknown.isFailure)

            let options = try await client.post("/assertion/options", [:])
            let stranger = TestAuthenticator()
            _ = try stranger.register(["challenge": "AAAA", "user": ["id": Base64URL.encode([1, 2, 3])]])
            let reply = try await client.post("/assertion/result", try stranger.assert(options.json))
            #expect(reply.status == .badRequest)
            #expect(reply.errorMessage.contains("not registered"), "\(reply.errorMessage)")
        }
    }

    @Test func optionsEchoTheirInputsAndCarryTheServerValues() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let selection: [String: Any] = ["residentKey": "required", "userVerification": "required", "authenticatorAttachment": "platform"]
            let creation = try await client.post("/attestation/options", [
                "username": "gina", "authenticatorSelection": selection, "extensions": ["credProps": true, "example.unknown": [1, 2]],
            ])
            #expect(creation.isOK, "\(creation.text)")
            // As asked (it asks for at least the server's minimums), with the matching Level 1 member.
            #expect(creation.json["authenticatorSelection"] as? NSDictionary == selection.merging(["requireResidentKey": true]) { $1 } as NSDictionary)
            #expect((creation.json["extensions"] as? [String: Any])?["example.unknown"] as? [Int] == [1, 2])
            #expect(creation.json["attestation"] as? String == "none")
            #expect(creation.json["timeout"] as? Int == 300_000)
            #expect((creation.json["rp"] as? [String: Any])?["id"] as? String == "localhost")
            let algorithms = (creation.json["pubKeyCredParams"] as? [[String: Any]] ?? []).compactMap { $0["alg"] as? Int }
            #expect(algorithms.first == -7 && algorithms.contains(-257))
            let challenge = try #require((creation.json["challenge"] as? String).flatMap(Base64URL.decode))
            #expect(challenge.count == 32)
            #expect(creation.headers[values: .setCookie].contains { $0.hasPrefix("latchkey_registration=") })

            let request = try await client.post("/assertion/options", ["userVerification": "required"])
            #expect(request.json["rpId"] as? String == "localhost")
            #expect(request.json["allowCredentials"] as? [Any] != nil)
            #expect(request.json["userVerification"] as? String == "required")
            #expect(request.headers[values: .setCookie].contains { $0.hasPrefix("latchkey_signin=") })
        }
    }

    @Test func conformancePolicyEchoesTheDisplayNameAndOpensExistingUsernames() async throws {
        let harness = try RouteHarness(conformanceMode: true)
        try await harness.run { client in
            #expect(try await client.register("hank", with: TestAuthenticator()).isOK)
            let again = try await client.post("/attestation/options", ["username": "hank", "displayName": "Someone Else"])
            #expect(again.isOK, "\(again.text)")
            #expect((again.json["user"] as? [String: Any])?["displayName"] as? String == "Someone Else")
            // The stored name did not change.
            #expect(try await harness.store.user(named: "hank")?.displayName == "Hank")
        }
    }
}
