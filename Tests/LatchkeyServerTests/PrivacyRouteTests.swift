import Foundation
import HTTPTypes
import LatchkeyStore
import Testing
import WebAuthn

@testable import LatchkeyServer
@testable import LatchkeyService

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
            // Alice's is the only passkey there is, so the decoy imitates it.
            #expect(decoys.count == real.count)
            #expect(Set(decoys[0].keys) == Set(real[0].keys))
            #expect(decoys[0]["type"] as? String == "public-key")
            #expect((decoys[0]["id"] as? String).flatMap(Base64URL.decode)?.count == (real[0]["id"] as? String).flatMap(Base64URL.decode)?.count)
            #expect(decoys[0]["transports"] as? [String] == real[0]["transports"] as? [String])

            // Stable for one username, different for another, and never a real credential.
            let again = try await client.post("/assertion/options", ["username": "nobody"])
            #expect((again.json["allowCredentials"] as? [[String: Any]])?.first?["id"] as? String == decoys[0]["id"] as? String)
            let other = try await client.post("/assertion/options", ["username": "somebody"])
            #expect((other.json["allowCredentials"] as? [[String: Any]])?.first?["id"] as? String != decoys[0]["id"] as? String)
            #expect(decoys[0]["id"] as? String != real[0]["id"] as? String)

            // Answering the decoy options with a real passkey fails, and signs nobody in.
            let answered = try await client.post("/assertion/result", try authenticator.assert(unknown.json))
            #expect(answered.status == .badRequest && answered.json["sessionToken"] == nil, "\(answered.text)")
            #expect(try await harness.store.user(named: "nobody") == nil)
        }
    }

    /// A made-up answer naming a listed ID is refused as an answer to a decoy is, whatever it gets wrong:
    /// otherwise one such answer tells a real account's list from a decoy. An answer the passkey did sign
    /// is its owner's, and is told what is wrong.
    @Test func aMadeUpAnswerToAKnownUsersOptionsIsRefusedAsADecoysIs() async throws {
        let harness = try RouteHarness { $0.hideUnknownUsers = true }
        try await harness.run { client in
            let alices = TestAuthenticator()
            #expect(try await client.register("alice", with: alices).isOK)

            var forged = try alices.assert(try await client.post("/assertion/options", ["username": "alice"]).json)
            var response = try #require(forged["response"] as? [String: Any])
            var signature = try #require((response["signature"] as? String).flatMap(Base64URL.decode))
            signature[signature.count - 1] ^= 0x01
            response["signature"] = Base64URL.encode(signature)
            forged["response"] = response
            let known = try await client.post("/assertion/result", forged)

            let decoyOptions = try await client.post("/assertion/options", ["username": "nobody"]).json
            var decoyAnswer = try alices.assert(decoyOptions)
            let decoyID = try #require((decoyOptions["allowCredentials"] as? [[String: Any]])?.first?["id"] as? String)
            (decoyAnswer["id"], decoyAnswer["rawId"]) = (decoyID, decoyID)
            let unknown = try await client.post("/assertion/result", decoyAnswer)

            // Alice's listed ID, made up for a name nobody has: not "another user's passkey".
            var misdirected = try alices.assert(try await client.post("/assertion/options", ["username": "nobody-else"]).json)
            var misdirectedResponse = try #require(misdirected["response"] as? [String: Any])
            misdirectedResponse["signature"] = response["signature"]
            misdirected["response"] = misdirectedResponse
            let elsewhere = try await client.post("/assertion/result", misdirected)

            for reply in [known, unknown, elsewhere] {
                #expect(reply.status == .badRequest && reply.json["reason"] as? String == "unknownCredential", "\(reply.text)")
            }
            #expect(known.errorMessage == unknown.errorMessage && elsewhere.errorMessage == unknown.errorMessage)

            let wrongOrigin = try alices.assert(
                try await client.post("/assertion/options", ["username": "alice"]).json, clientDataOrigin: "https://evil.example")
            let told = try await client.post("/assertion/result", wrongOrigin)
            #expect(told.status == .badRequest && told.json["reason"] == nil && told.errorMessage.contains("origin"), "\(told.text)")
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

    /// Two users with one 20-byte passkey each (an iPhone's, no transports) and one with two 64-byte
    /// security keys: decoys have one entry twice as often as two, and each entry one of those shapes,
    /// about as often as the passkeys have it.
    @Test func decoysImitateTheRegisteredPasskeys() async throws {
        let harness = try RouteHarness { $0.hideUnknownUsers = true }
        let now = Date()
        func passkey(_ tag: UInt8, of owner: UserRecord, length: Int, transports: [AuthenticatorTransport]) -> CredentialRecord {
            CredentialRecord(
                id: [UInt8](repeating: tag, count: length), userHandle: owner.handle, publicKey: [tag], algorithm: .es256, signCount: 0,
                transports: transports, aaguid: [UInt8](repeating: 0, count: 16), attestationFormat: .none, attestationType: .none,
                backupEligible: false, backedUp: false, residentKey: true, userVerified: true, createdAt: now)
        }
        for (tag, name) in [(UInt8(1), "ann"), (2, "ben"), (3, "cat")] {
            let user = UserRecord(handle: [UInt8](repeating: tag, count: 16), username: name, displayName: name, createdAt: now)
            let keys = tag == 3
                ? [passkey(30, of: user, length: 64, transports: [.nfc, .usb]), passkey(31, of: user, length: 64, transports: [.nfc, .usb])]
                : [passkey(tag, of: user, length: 20, transports: [])]
            try await harness.store.register(NewRegistration(credential: keys[0], newUser: user))
            for key in keys.dropFirst() { try await harness.store.register(NewRegistration(credential: key, newUser: nil)) }
        }
        try await harness.run { client in
            var lists: [Int: Int] = [:]
            var shapes: [String: Int] = [:]
            for index in 0..<300 {
                let reply = try await client.post("/assertion/options", ["username": "nobody-\(index)"])
                let entries = try #require(reply.json["allowCredentials"] as? [[String: Any]], "\(reply.text)")
                lists[entries.count, default: 0] += 1
                for entry in entries {
                    let length = (entry["id"] as? String).flatMap(Base64URL.decode)?.count ?? 0
                    shapes["\(length) \((entry["transports"] as? [String])?.joined(separator: ",") ?? "-")", default: 0] += 1
                }
            }
            #expect(Set(lists.keys) == [1, 2] && Set(shapes.keys) == ["20 -", "64 nfc,usb"], "\(lists) \(shapes)")
            // 200 and 100 expected; far outside these bounds only once in millions of runs.
            #expect((150...250).contains(lists[1] ?? 0), "\(lists)")
            let total = shapes.values.reduce(0, +)
            #expect((0.35...0.65).contains(Double(shapes["20 -"] ?? 0) / Double(total)), "\(shapes)")
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
