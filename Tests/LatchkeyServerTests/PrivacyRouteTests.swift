import Foundation
import HTTPTypes
import Testing
import WebAuthn

@testable import LatchkeyServer

/// `hideUnknownUsers`: `/assertion/options` must not tell whether a username exists.
@Suite("Username privacy")
struct PrivacyRouteTests {
    @Test func anUnknownUsernameGetsOptionsShapedLikeAKnownOnes() async throws {
        let harness = try RouteHarness { $0.hideUnknownUsers = true }
        try await harness.run { client in
            let authenticator = TestAuthenticator()
            #expect(try await client.register("alice", with: authenticator).isOK)
            let known = try await client.post("/assertion/options", ["username": "alice"])
            let unknown = try await client.post("/assertion/options", ["username": "nobody"])
            #expect(unknown.isOK, "\(unknown.text)")
            #expect(Set(unknown.json.keys) == Set(known.json.keys))
            #expect(Set(unknown.headers.map(\.name)) == Set(known.headers.map(\.name)))

            let decoys = try #require(unknown.json["allowCredentials"] as? [[String: Any]])
            let real = try #require(known.json["allowCredentials"] as? [[String: Any]])
            #expect(decoys.count == real.count)
            #expect(Set(decoys[0].keys) == Set(real[0].keys))
            #expect(decoys[0]["type"] as? String == "public-key")
            #expect((decoys[0]["id"] as? String).flatMap(Base64URL.decode)?.count == 32)

            // Stable for one username, different for another, and never a real credential.
            let again = try await client.post("/assertion/options", ["username": "nobody"])
            #expect((again.json["allowCredentials"] as? [[String: Any]])?.first?["id"] as? String == decoys[0]["id"] as? String)
            let other = try await client.post("/assertion/options", ["username": "somebody"])
            #expect((other.json["allowCredentials"] as? [[String: Any]])?.first?["id"] as? String != decoys[0]["id"] as? String)
            #expect(decoys[0]["id"] as? String != real[0]["id"] as? String)

            // Answering the decoy options with a real passkey fails, and signs nobody in.
            let answered = try await client.post("/assertion/result", try authenticator.assert(unknown.json))
            #expect(answered.status == .badRequest && answered.json["sessionToken"] == nil, "\(answered.text)")
            #expect(try harness.store.user(named: "nobody") == nil)
        }
    }

    /// An account made ahead through the admin API has no passkey yet; an empty allow list would set it
    /// apart from the names nobody has, so it gets a decoy too.
    @Test func anAccountWithoutAPasskeyLooksLikeTheOthers() async throws {
        let harness = try RouteHarness { $0.hideUnknownUsers = true }
        let key = try await AdminKeys.create(named: "tests", in: harness.store)
        try await harness.run { client in
            let made = try await client.send(.post, "/admin/v1/users", json: ["username": "carol"], headers: [.authorization: "Bearer \(key)"])
            #expect(made.status == .created, "\(made.text)")
            let carol = try await client.post("/assertion/options", ["username": "carol"])
            let nobody = try await client.post("/assertion/options", ["username": "nobody"])
            let lists = [carol, nobody].map { $0.json["allowCredentials"] as? [[String: Any]] }
            #expect(lists.map { $0?.count } == [1, 1], "\(carol.text)")
        }
    }

    @Test func theDecoysAreTheSameAfterARestart() async throws {
        let harness = try RouteHarness { $0.hideUnknownUsers = true }
        let first = try await harness.run { client in
            try await client.post("/assertion/options", ["username": "nobody"]).text
        }
        let second = try await harness.run { client in
            try await client.post("/assertion/options", ["username": "nobody"]).text
        }
        let ids = [first, second].map { text -> String? in
            let json = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
            return (json?["allowCredentials"] as? [[String: Any]])?.first?["id"] as? String
        }
        #expect(ids[0] != nil && ids[0] == ids[1])
    }

    @Test func offByDefaultAnUnknownUsernameIs404() async throws {
        try await RouteHarness().run { client in
            let reply = try await client.post("/assertion/options", ["username": "nobody"])
            #expect(reply.status == .notFound && reply.isFailure)
        }
    }
}
