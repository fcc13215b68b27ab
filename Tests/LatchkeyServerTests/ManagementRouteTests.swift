import Foundation
import HTTPTypes
import Testing
import WebAuthn

/// The signed-in routes: the session, the user's passkeys and the account. Real SQLite, real
/// signatures, no socket.
@Suite("Management routes")
struct ManagementRouteTests {
    /// 1Password's AAGUID, named in `Config/passkey-provider-aaguids.json`.
    static let onePassword = AAGUID.bytes("bada5566-a7aa-401f-bd96-45619a55120d") ?? []

    @Test(arguments: [
        (HTTPRequest.Method.get, "/session"), (.delete, "/session"), (.post, "/session/logout"), (.get, "/credentials"),
        (.patch, "/credentials/AAAA"), (.delete, "/credentials/AAAA"), (.delete, "/account"),
    ])
    func everySignedInRouteIs401WithoutASession(method: HTTPRequest.Method, path: String) async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            for headers: HTTPFields in [[:], [.authorization: "Bearer \(Base64URL.encode(Array(repeating: 7, count: 32)))"]] {
                let reply = try await client.send(method, path, json: method == .patch ? ["name": "x"] : nil, headers: headers)
                #expect(reply.status == .unauthorized, "\(method) \(path): \(reply.text)")
                #expect(reply.isFailure && reply.errorMessage == "not signed in")
            }
        }
    }

    @Test func sessionNamesTheUserAndSignOutEndsItAtOnce() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let registered = try await client.register("alice", with: TestAuthenticator())
            let bearer = try Self.bearer(registered)
            let session = try await client.send(.get, "/session", headers: bearer)
            #expect(session.isOK)
            #expect(session.json["username"] as? String == "alice")
            #expect(session.json["displayName"] as? String == "Alice")
            #expect(session.json["rpId"] as? String == "localhost")
            let handle = try #require(try await harness.store.user(named: "alice")?.handle)
            #expect(session.json["userHandle"] as? String == Base64URL.encode(handle))

            let signedOut = try await client.send(.delete, "/session", headers: bearer)
            #expect(signedOut.isOK, "\(signedOut.text)")
            #expect(signedOut.headers[.setCookie]?.contains("Max-Age=0") == true, "the cookie is cleared")
            #expect(try await client.send(.get, "/session", headers: bearer).status == .unauthorized)
            #expect(try await client.send(.delete, "/session", headers: bearer).status == .unauthorized, "a token ends once")
        }
    }

    /// `GET /site` names the relying party and says whether the caller is signed in, never with a 401.
    @Test func theSiteSaysWhoItIsAndWhetherTheCallerIsSignedIn() async throws {
        let harness = try RouteHarness { $0.rpName = "Example Shop" }
        try await harness.run { client in
            let signedOut = try await client.send(.get, "/site")
            #expect(signedOut.isOK, "\(signedOut.text)")
            #expect(signedOut.json["rpId"] as? String == "localhost")
            #expect(signedOut.json["rpName"] as? String == "Example Shop")
            #expect(signedOut.json["signedIn"] as? Bool == false)
            let bearer = try Self.bearer(try await client.register("alice", with: TestAuthenticator()))
            #expect(try await client.send(.get, "/site", headers: bearer).json["signedIn"] as? Bool == true)
            #expect(try await client.send(.delete, "/session", headers: bearer).isOK)
            let ended = try await client.send(.get, "/site", headers: bearer)
            #expect(ended.isOK && ended.json["signedIn"] as? Bool == false, "\(ended.text)")
        }
    }

    @Test func theListShowsEachPasskeyWithItsProviderName() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let authenticator = TestAuthenticator()
            let registered = try await client.register("alice", with: authenticator)
            let bearer = try Self.bearer(registered)
            // A second passkey, from 1Password, backed up (BE and BS set), added while signed in.
            let added = try await client.register(
                "alice", with: authenticator, bearer: bearer.bearerToken, flags: 0x5D, aaguid: Self.onePassword)
            #expect(added.isOK, "\(added.text)")
            let options = try await client.post("/assertion/options", ["username": "alice"])
            let signedIn = try await client.post("/assertion/result", try authenticator.assert(options.json, credential: 1, flags: 0x1D))
            #expect(signedIn.isOK, "\(signedIn.text)")

            let list = try await client.send(.get, "/credentials", headers: bearer)
            #expect(list.isOK, "\(list.text)")
            #expect(list.json["rpId"] as? String == "localhost")
            let credentials = try #require(list.json["credentials"] as? [[String: Any]])
            try #require(credentials.count == 2)
            let (first, second) = (credentials[0], credentials[1])
            #expect(first["id"] as? String == Base64URL.encode(authenticator.credentials[0].id), "oldest first")
            #expect(first["name"] as? String == "Passkey")
            #expect(first["authenticatorName"] as? String == "Passkey", "the all-zero AAGUID")
            #expect(first["aaguid"] as? String == "00000000-0000-0000-0000-000000000000")
            #expect(first["lastUsedAt"] is NSNull, "never used: null")
            #expect(first["backedUp"] as? Bool == false)
            #expect(first["transports"] as? [String] == ["internal", "hybrid"])
            #expect(first["attestationFormat"] as? String == "none")
            #expect(first["userVerified"] as? Bool == true)
            #expect(second["name"] as? String == "1Password")
            #expect(second["authenticatorName"] as? String == "1Password")
            #expect(second["backupEligible"] as? Bool == true)
            #expect(second["backedUp"] as? Bool == true)
            for credential in credentials {
                let created = try #require(credential["createdAt"] as? String)
                #expect(try Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(created) <= Date())
                #expect(created.hasSuffix("Z"))
            }
            let lastUsed = try #require(second["lastUsedAt"] as? String)
            #expect(try Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(lastUsed) <= Date())
            #expect(list.text.contains("publicKey") == false, "no key material is listed")
        }
    }

    @Test func aRenamePersistsAcrossSessionsAndOnlyTheOwnerCanRename() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let alices = TestAuthenticator()
            let alice = try Self.bearer(try await client.register("alice", with: alices))
            let bob = try Self.bearer(try await client.register("bob", with: TestAuthenticator()))
            let id = Base64URL.encode(alices.credentials[0].id)

            let renamed = try await client.send(.patch, "/credentials/\(id)", json: ["name": "Cafe\u{301} phone"], headers: alice)
            #expect(renamed.isOK, "\(renamed.text)")
            let credential = try #require(renamed.json["credential"] as? [String: Any])
            #expect(credential["name"] as? String == "Caf\u{E9} phone", "stored in NFC")
            #expect(credential["authenticatorName"] as? String == "Passkey", "the provider name stays")

            // Bob cannot rename Alice's passkey, and learns nothing: the same 404 as an unknown id.
            let stolen = try await client.send(.patch, "/credentials/\(id)", json: ["name": "mine"], headers: bob)
            let unknown = try await client.send(
                .patch, "/credentials/\(Base64URL.encode(Array(repeating: 9, count: 16)))", json: ["name": "x"], headers: alice)
            let garbage = try await client.send(.patch, "/credentials/not*base64", json: ["name": "x"], headers: alice)
            for reply in [stolen, unknown, garbage] {
                #expect(reply.status == .notFound && reply.errorMessage == "no passkey with this id", "\(reply.text)")
            }

            // A new session sees the name.
            let again = try await client.signIn(nil, with: alices)
            let list = try await client.send(.get, "/credentials", headers: try Self.bearer(again))
            let names = (list.json["credentials"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
            #expect(names == ["Caf\u{E9} phone"])

            // `"name": null` removes it: the provider's name shows again.
            let cleared = try await client.send(.patch, "/credentials/\(id)", raw: #"{"name":null}"#, headers: alice)
            #expect((cleared.json["credential"] as? [String: Any])?["name"] as? String == "Passkey", "\(cleared.text)")
            #expect(try await harness.store.credential(id: alices.credentials[0].id)?.name == nil)
        }
    }

    @Test(arguments: [
        (#"{"name":""}"#, "name is blank"), (#"{"name":"   "}"#, "name is blank"),
        (#"{"name":"a\u0007b"}"#, "control character U+0007"), (#"{}"#, "name"), (#"{"name":7}"#, "name"),
        ("{\"name\":\"\(String(repeating: "é", count: 65))\"}", "at most 128"),
    ])
    func aBadNameIs400NamingTheProblem(body: String, expected: String) async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let authenticator = TestAuthenticator()
            let bearer = try Self.bearer(try await client.register("alice", with: authenticator))
            let id = Base64URL.encode(authenticator.credentials[0].id)
            let reply = try await client.send(.patch, "/credentials/\(id)", raw: body, headers: bearer)
            #expect(reply.status == .badRequest && reply.errorMessage.contains(expected), "\(reply.text)")
            let stored = try await harness.store.credential(id: authenticator.credentials[0].id)
            #expect(stored?.name == nil, "nothing is written")
        }
    }

    @Test func removingAPasskeyIsTheOwnersAndNeverTheLast() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let alices = TestAuthenticator()
            let alice = try Self.bearer(try await client.register("alice", with: alices))
            let bob = try Self.bearer(try await client.register("bob", with: TestAuthenticator()))
            let only = Base64URL.encode(alices.credentials[0].id)

            let last = try await client.send(.delete, "/credentials/\(only)", headers: alice)
            #expect(last.status == .conflict && last.errorMessage.contains("only passkey"), "\(last.text)")

            #expect(try await client.register("alice", with: alices, bearer: alice.bearerToken).isOK)
            let stolen = try await client.send(.delete, "/credentials/\(only)", headers: bob)
            #expect(stolen.status == .notFound && stolen.errorMessage == "no passkey with this id")
            #expect(try await harness.store.credential(id: alices.credentials[0].id) != nil, "Bob removed nothing")

            let removed = try await client.send(.delete, "/credentials/\(only)", headers: alice)
            #expect(removed.isOK, "\(removed.text)")
            #expect(try await harness.store.credential(id: alices.credentials[0].id) == nil)
            #expect(try await client.send(.delete, "/credentials/\(only)", headers: alice).status == .notFound)

            // Signing in with the removed passkey tells the page which credential to forget.
            let refused = try await client.signIn(nil, with: alices, credential: 0)
            #expect(refused.status == .badRequest)
            #expect(refused.json["reason"] as? String == "unknownCredential")
            #expect(refused.json["credentialId"] as? String == only)
            #expect(try await client.signIn(nil, with: alices, credential: 1).isOK, "the other passkey still works")
        }
    }

    @Test func deletingTheAccountRemovesEverythingAndFreesTheUsername() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let authenticator = TestAuthenticator()
            let registered = try await client.register("alice", with: authenticator)
            let alice = try Self.bearer(registered)
            #expect(try await client.register("alice", with: authenticator, bearer: alice.bearerToken).isOK)
            let otherSession = try Self.bearer(try await client.signIn("alice", with: authenticator))
            let handle = try #require(try await harness.store.user(named: "alice")?.handle)

            let deleted = try await client.send(.delete, "/account", headers: alice)
            #expect(deleted.isOK, "\(deleted.text)")
            #expect(deleted.headers[.setCookie]?.contains("Max-Age=0") == true)
            #expect(try await harness.store.user(named: "alice") == nil)
            #expect(try await harness.store.credentials(ofUser: handle).isEmpty)
            for credential in authenticator.credentials {
                #expect(try await harness.store.credential(id: credential.id) == nil)
            }
            for bearer in [alice, otherSession] {
                #expect(try await client.send(.get, "/session", headers: bearer).status == .unauthorized, "every session ends")
            }
            let refused = try await client.signIn(nil, with: authenticator)
            #expect(refused.json["reason"] as? String == "unknownCredential")

            let again = try await client.register("alice", with: TestAuthenticator())
            #expect(again.isOK, "the username is free again: \(again.text)")
        }
    }

    @Test func aCrossSiteDeleteIsRefused() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let authenticator = TestAuthenticator()
            var headers = try Self.bearer(try await client.register("alice", with: authenticator))
            #expect(try await client.register("alice", with: authenticator, bearer: headers.bearerToken).isOK)
            headers[.origin] = "https://evil.example"
            let id = Base64URL.encode(authenticator.credentials[0].id)
            for (method, path) in [(HTTPRequest.Method.delete, "/credentials/\(id)"), (.delete, "/account"), (.delete, "/session")] {
                #expect(try await client.send(method, path, headers: headers).status == .forbidden, "\(method) \(path)")
            }
            #expect(try await harness.store.credential(id: authenticator.credentials[0].id) != nil)
        }
    }

    /// `Authorization: Bearer` with the session token of a sign-in or first registration reply.
    static func bearer(_ reply: RouteReply) throws -> HTTPFields {
        let token = try #require(reply.json["sessionToken"] as? String, "no session token in \(reply.text)")
        return [.authorization: "Bearer \(token)"]
    }
}

extension HTTPFields {
    /// The token of an `Authorization: Bearer` field.
    var bearerToken: String? { self[.authorization].map { String($0.dropFirst("Bearer ".count)) } }
}
