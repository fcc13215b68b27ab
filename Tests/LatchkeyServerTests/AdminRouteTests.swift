import Foundation
import HTTPTypes
import LatchkeyConfiguration
import LatchkeyStore
import Testing
import WebAuthn
@testable import LatchkeyServer
@testable import LatchkeyService

/// The admin API, enrollment tickets in the registration ceremony and the sign-in tokens, through
/// the router over a real SQLite store.
@Suite("Admin API")
struct AdminRouteTests {
    /// A harness with one admin key in its store, and that key.
    static func harness(configure: (inout LatchkeyConfiguration) -> Void = { _ in }) async throws -> (RouteHarness, String) {
        let harness = try RouteHarness(configure: configure)
        return (harness, try await AdminKeys.create(named: "tests", in: harness.store))
    }

    static func admin(_ key: String) -> HTTPFields { [.authorization: "Bearer \(key)"] }

    @Test func onlyALiveAdminKeyIsLetIn() async throws {
        let (harness, key) = try await Self.harness { $0.corsOrigins = ["http://localhost:8080"] }
        let revoked = try await AdminKeys.create(named: "old", in: harness.store)
        #expect(try await harness.store.deleteAdminKey(named: "old"))
        try await harness.run { client in
            let session = try await client.register("alice", with: TestAuthenticator()).json["sessionToken"] as? String ?? ""
            for headers: HTTPFields in [
                [:], [.authorization: "Basic \(key)"], Self.admin("lk_admin_" + String(repeating: "A", count: 43)), Self.admin(revoked),
                Self.admin(session),
            ] {
                let reply = try await client.send(.get, "/admin/v1/users/alice", headers: headers)
                #expect(reply.status == .unauthorized, "\(headers): \(reply.text)")
                #expect(reply.isFailure)
                #expect(reply.headers[.wwwAuthenticate] == "Bearer realm=\"latchkey-admin\"")
            }
            // An admin key is no session.
            #expect(try await client.send(.get, "/credentials", headers: Self.admin(key)).status == .unauthorized)
            // A live key works, and no origin gets CORS on the admin API.
            var headers = Self.admin(key)
            headers[.origin] = "http://localhost:8080"
            let reply = try await client.send(.get, "/admin/v1/users/alice", headers: headers)
            #expect(reply.isOK, "\(reply.text)")
            #expect(reply.headers[.accessControlAllowOrigin] == nil)
            #expect(try await client.send(.get, "/session", headers: headers).headers[.accessControlAllowOrigin] == "http://localhost:8080")
        }
        #expect(try await harness.store.adminKeys().first { $0.name == "tests" }?.lastUsedAt != nil, "the use is recorded")
    }

    /// Accounts kept before width mapping and the refusal of invisible characters and mixed scripts can still be managed.
    @Test func anAccountKeptUnderEarlierUsernameRulesIsStillFound() async throws {
        let (harness, key) = try await Self.harness()
        for name in ["bob\u{200D}", "\u{FF41}lice", "p\u{430}ypal"] {
            let handle = Array(name.utf8) + [UInt8](repeating: 1, count: 32)
            try await harness.store.createUser(UserRecord(handle: handle, username: name, displayName: name, createdAt: Date()))
        }
        try await harness.run { client in
            for (path, name) in [("bob%E2%80%8D", "bob\u{200D}"), ("%EF%BD%81lice", "\u{FF41}lice"), ("p%D0%B0ypal", "p\u{430}ypal")] {
                let shown = try await client.send(.get, "/admin/v1/users/\(path)", headers: Self.admin(key))
                #expect((shown.json["user"] as? [String: Any])?["username"] as? String == name, "\(shown.text)")
                let options = try await client.send(.post, "/assertion/options", json: ["username": name])
                #expect(options.isOK, "\(options.text)")
            }
            #expect(try await client.send(.delete, "/admin/v1/users/bob%E2%80%8D", headers: Self.admin(key)).isOK)
        }
    }

    /// External IDs are the backend's bytes: a canonically equivalent spelling is another ID, so changing to it
    /// changes it, and another user may hold it.
    @Test func externalIDsAreComparedAsBytes() async throws {
        let (harness, key) = try await Self.harness()
        try await harness.run { client in
            _ = try await client.send(.post, "/admin/v1/users", json: ["username": "erin", "externalId": "cafe\u{301}"], headers: Self.admin(key))
            let changed = try await client.send(.patch, "/admin/v1/users/erin", json: ["externalId": "caf\u{E9}"], headers: Self.admin(key))
            #expect((changed.json["user"] as? [String: Any])?["externalId"] as? String == "caf\u{E9}", "\(changed.text)")
            let found = try await client.send(.get, "/admin/v1/users?externalId=caf%C3%A9", headers: Self.admin(key))
            #expect((found.json["user"] as? [String: Any])?["username"] as? String == "erin", "\(found.text)")
            let other = try await client.send(.post, "/admin/v1/users", json: ["username": "fay", "externalId": "cafe\u{301}"], headers: Self.admin(key))
            #expect(other.status == .created, "the decomposed spelling is free again: \(other.text)")
        }
    }

    /// A display name that was the username follows a rename; one the user chose stays.
    @Test func aRenameCarriesADefaultDisplayNameAlong() async throws {
        let (harness, key) = try await Self.harness()
        try await harness.run { client in
            for (username, displayName) in [("carol", nil), ("dan", "Dan the Man")] as [(String, String?)] {
                var body: [String: Any] = ["username": username]
                if let displayName { body["displayName"] = displayName }
                #expect(try await client.send(.post, "/admin/v1/users", json: body, headers: Self.admin(key)).status == .created)
                let renamed = try await client.send(.patch, "/admin/v1/users/\(username)", json: ["username": "New-\(username)"], headers: Self.admin(key))
                let user = renamed.json["user"] as? [String: Any] ?? [:]
                #expect(user["username"] as? String == "new-\(username)", "\(renamed.text)")
                #expect(user["displayName"] as? String == displayName ?? "New-\(username)", "\(renamed.text)")
            }
        }
    }

    @Test func aBackendCreatesFindsAndDeletesUsers() async throws {
        let (harness, key) = try await Self.harness()
        try await harness.run { client in
            let created = try await client.send(
                .post, "/admin/v1/users", json: ["username": "Alice", "displayName": "Alice A.", "externalId": "crm-42"],
                headers: Self.admin(key))
            #expect(created.status == .created, "\(created.text)")
            let user = created.json["user"] as? [String: Any] ?? [:]
            #expect(user["username"] as? String == "alice", "usernames are folded")
            #expect(user["externalId"] as? String == "crm-42")
            #expect(user["passkeys"] as? Int == 0)
            #expect(user["lastSignInAt"] is NSNull)

            for (body, status, message) in [
                (["username": "ALICE"], HTTPResponse.Status.conflict, "already registered"),
                (["username": "bob", "externalId": "crm-42"], .conflict, "belongs to another user"),
                (["username": "bob", "externalId": ""], .badRequest, "externalId is blank"),
                (["username": "bob", "externalId": String(repeating: "x", count: 256)], .badRequest, "externalId is 256 bytes of UTF-8; at most 255 are allowed"),
                (["username": "bob", "externalId": "  "], .badRequest, "externalId is blank"),
                (["username": "bob", "externalId": "crm\u{2028}42"], .badRequest, "externalId contains the control character U+2028"),
                (["username": "bo\u{7}b"], .badRequest, "control character"),
            ] as [([String: Any], HTTPResponse.Status, String)] {
                let reply = try await client.send(.post, "/admin/v1/users", json: body, headers: Self.admin(key))
                #expect(reply.status == status, "\(body): \(reply.text)")
                #expect(reply.errorMessage.contains(message), "\(reply.errorMessage)")
            }
            #expect(try await harness.store.user(named: "bob") == nil, "nothing refused was written")

            let found = try await client.send(.get, "/admin/v1/users?externalId=crm-42", headers: Self.admin(key))
            #expect((found.json["user"] as? [String: Any])?["username"] as? String == "alice")
            #expect(try await client.send(.get, "/admin/v1/users?externalId=nobody", headers: Self.admin(key)).status == .notFound)
            #expect(try await client.send(.get, "/admin/v1/users?externalId=", headers: Self.admin(key)).status == .badRequest)
            // Without an externalId, every user, a page at a time.
            let listed = try await client.send(.get, "/admin/v1/users?limit=1", headers: Self.admin(key))
            #expect((listed.json["users"] as? [[String: Any]])?.compactMap { $0["username"] as? String } == ["alice"])
            let cursor = try #require(listed.json["nextCursor"] as? String)
            let rest = try await client.send(.get, "/admin/v1/users?limit=1&cursor=\(cursor)", headers: Self.admin(key))
            #expect((rest.json["users"] as? [Any])?.isEmpty == true && rest.json["nextCursor"] == nil)
            for query in ["limit=0", "limit=201", "limit=x", "cursor=*"] {
                #expect(try await client.send(.get, "/admin/v1/users?\(query)", headers: Self.admin(key)).status == .badRequest, "\(query)")
            }
            #expect(try await client.send(.get, "/admin/v1/users/Al%69CE", headers: Self.admin(key)).isOK, "decoded and folded")

            #expect(try await client.send(.delete, "/admin/v1/users/alice", headers: Self.admin(key)).isOK)
            #expect(try await client.send(.get, "/admin/v1/users/alice", headers: Self.admin(key)).status == .notFound)
            #expect(try await client.send(.delete, "/admin/v1/users/alice", headers: Self.admin(key)).status == .notFound)
        }
    }

    @Test func aTicketRegistersOnePasskeyForItsUserOnce() async throws {
        let (harness, key) = try await Self.harness { $0.registration = .tickets }
        try await harness.run { client in
            // Open sign-up is closed.
            let mallory = try await client.post("/attestation/options", ["username": "mallory"])
            #expect(mallory.status == .forbidden)
            #expect(mallory.errorMessage.contains("needs an enrollment ticket"), "\(mallory.errorMessage)")

            _ = try await client.send(.post, "/admin/v1/users", json: ["username": "alice", "externalId": "crm-1"], headers: Self.admin(key))
            _ = try await client.send(.post, "/admin/v1/users", json: ["username": "bob"], headers: Self.admin(key))
            // A user made ahead needs a ticket too, and is refused in the same words: no name is told to be taken.
            let alice = try await client.post("/attestation/options", ["username": "alice"])
            #expect(alice.status == .forbidden && alice.errorMessage == mallory.errorMessage, "\(alice.errorMessage)")
            let issued = try await client.send(
                .post, "/admin/v1/users/alice/enrollment-tickets", json: ["expiresIn": 120], headers: Self.admin(key))
            #expect(issued.status == .created, "\(issued.text)")
            let ticket = try #require(issued.json["ticket"] as? String)
            #expect(ticket.hasPrefix("lk_ticket_"))
            #expect(issued.json["enrollmentURL"] as? String == "http://localhost:8080/#ticket=\(ticket)")

            // The ticket is for alice only.
            let wrong = try await client.post("/attestation/options", ["username": "bob", "enrollmentTicket": ticket])
            #expect(wrong.status == .forbidden)
            #expect(wrong.errorMessage.contains("for another user"), "\(wrong.errorMessage)")

            // The ticket names its user; the registration signs her in and says so in a token.
            let authenticator = TestAuthenticator()
            let options = try await client.post("/attestation/options", ["enrollmentTicket": ticket])
            #expect(options.isOK, "\(options.text)")
            #expect((options.json["user"] as? [String: Any])?["name"] as? String == "alice")
            let spare = try await client.post("/attestation/options", ["enrollmentTicket": ticket, "username": "Alice"])
            #expect(spare.isOK, "options may be asked again until the ticket is spent")
            let result = try await client.post("/attestation/result", try authenticator.register(options.json))
            #expect(result.isOK, "\(result.text)")
            let session = try #require(result.json["sessionToken"] as? String)
            #expect(try await client.send(.get, "/session", headers: [.authorization: "Bearer \(session)"]).json["username"] as? String == "alice")
            let keys = try await client.send(.get, "/.well-known/jwks.json").json["keys"] as? [[String: Any]] ?? []
            let token = try SignInTokenChecks.verify(try #require(result.json["idToken"] as? String), with: keys).claims
            #expect(token["preferred_username"] as? String == "alice")
            #expect(token["ext_id"] as? String == "crm-1")

            // Spent: neither new options nor the other pending options register again.
            let again = try await client.post("/attestation/options", ["enrollmentTicket": ticket])
            #expect(again.status == .forbidden)
            #expect(again.errorMessage.contains("already used"), "\(again.errorMessage)")
            let late = try await client.post("/attestation/result", try TestAuthenticator().register(spare.json))
            #expect(late.status == .forbidden)
            #expect(late.errorMessage.contains("already used"), "\(late.errorMessage)")
            #expect(try await harness.store.credentials(ofUser: try #require(try await harness.store.user(named: "alice")).handle).count == 1)
        }
    }

    @Test func unknownRevokedAndExpiredTicketsAreRefusedByName() async throws {
        let (harness, key) = try await Self.harness()
        try await harness.run { client in
            _ = try await client.send(.post, "/admin/v1/users", json: ["username": "alice"], headers: Self.admin(key))
            let alice = try #require(try await harness.store.user(named: "alice"))
            let expired = "lk_ticket_expired-for-the-test"
            try await harness.store.saveEnrollmentTicket(EnrollmentTicketRecord(
                hash: EnrollmentTickets.hash(expired), userHandle: alice.handle, createdAt: Date().addingTimeInterval(-700),
                expiresAt: Date().addingTimeInterval(-100)))
            let issued = try await client.send(.post, "/admin/v1/users/alice/enrollment-tickets", headers: Self.admin(key))
            #expect(issued.status == .created, "a ticket without a body lives the default 10 minutes: \(issued.text)")
            let revoked = try #require(issued.json["ticket"] as? String)
            let options = try await client.post("/attestation/options", ["enrollmentTicket": revoked])
            #expect(options.isOK)
            let revocation = try await client.send(.delete, "/admin/v1/users/alice/enrollment-tickets", headers: Self.admin(key))
            #expect(revocation.json["revoked"] as? Int == 1)

            for (ticket, message) in [
                ("lk_ticket_never-issued", "not a valid enrollment ticket"), (expired, "expired"), (revoked, "revoked"),
            ] {
                let reply = try await client.post("/attestation/options", ["enrollmentTicket": ticket])
                #expect(reply.status == .forbidden)
                #expect(reply.errorMessage.contains(message), "\(reply.errorMessage)")
            }
            // Options issued before the revocation cannot spend it either.
            let result = try await client.post("/attestation/result", try TestAuthenticator().register(options.json))
            #expect(result.status == .forbidden)
            #expect(result.errorMessage.contains("revoked"), "\(result.errorMessage)")

            for lifetime in [29, 86_401] {
                let reply = try await client.send(
                    .post, "/admin/v1/users/alice/enrollment-tickets", json: ["expiresIn": lifetime], headers: Self.admin(key))
                #expect(reply.status == .badRequest)
            }
            #expect(try await client.send(.post, "/admin/v1/users/nobody/enrollment-tickets", headers: Self.admin(key)).status == .notFound)
        }
    }

    @Test func aRevocationThatRevokesTicketsIsASecurityEventOfTheAdminKey() async throws {
        let (harness, key) = try await Self.harness()
        try await harness.run { client in
            _ = try await client.send(.post, "/admin/v1/users", json: ["username": "alice"], headers: Self.admin(key))
            let none = try await client.send(.delete, "/admin/v1/users/alice/enrollment-tickets", headers: Self.admin(key))
            #expect(none.json["revoked"] as? Int == 0, "\(none.text)")
            #expect(try await client.adminEvents("enrollment_ticket.revoked", key: key).isEmpty, "nothing revoked, nothing recorded")

            for _ in 0..<2 {
                #expect(try await client.send(.post, "/admin/v1/users/alice/enrollment-tickets", headers: Self.admin(key)).status == .created)
            }
            let revocation = try await client.send(.delete, "/admin/v1/users/alice/enrollment-tickets", headers: Self.admin(key))
            #expect(revocation.json["revoked"] as? Int == 2, "\(revocation.text)")
            let events = try await client.adminEvents("enrollment_ticket.revoked", key: key)
            #expect(events.count == 1)
            let event = try #require(events.first)
            #expect(event["detail"] as? String == "2 tickets revoked")
            #expect((event["user"] as? [String: Any])?["username"] as? String == "alice")
            let actor = try #require(event["actor"] as? [String: Any])
            #expect(actor["type"] as? String == "admin" && actor["name"] as? String == "tests", "\(actor)")
        }
    }

    @Test func theBackendManagesPasskeysAndSessions() async throws {
        let (harness, key) = try await Self.harness()
        try await harness.run { client in
            let authenticator = TestAuthenticator()
            let registered = try await client.register("alice", with: authenticator)
            let session = try #require(registered.json["sessionToken"] as? String)
            _ = try await client.signIn(nil, with: authenticator)

            let user = try await client.send(.get, "/admin/v1/users/alice", headers: Self.admin(key)).json["user"] as? [String: Any] ?? [:]
            #expect(user["passkeys"] as? Int == 1)
            #expect(user["lastSignInAt"] is String)
            let list = try await client.send(.get, "/admin/v1/users/alice/credentials", headers: Self.admin(key))
            let credentials = list.json["credentials"] as? [[String: Any]] ?? []
            let id = try #require(credentials.first?["id"] as? String)
            #expect(credentials.first?["authenticatorName"] is String, "the same passkey objects as GET /credentials")

            let ended = try await client.send(.delete, "/admin/v1/users/alice/sessions", headers: Self.admin(key))
            #expect(ended.json["ended"] as? Int == 2)
            #expect(try await client.send(.get, "/session", headers: [.authorization: "Bearer \(session)"]).status == .unauthorized)

            #expect(try await client.send(.delete, "/admin/v1/users/alice/credentials/AAAA", headers: Self.admin(key)).status == .notFound)
            #expect(try await client.send(.delete, "/admin/v1/users/alice/credentials/\(id)", headers: Self.admin(key)).isOK, "the last one too")
            let signIn = try await client.signIn(nil, with: authenticator)
            #expect(signIn.json["reason"] as? String == "unknownCredential")
        }
    }

    /// An account deleted while a passkey is being added to it stays deleted: the registration's result does not
    /// make it again under its old handle (which its tokens' `sub` named), whoever answers the options.
    @Test func aRegistrationUnderWayDoesNotBringADeletedAccountBack() async throws {
        let (harness, key) = try await Self.harness()
        try await harness.run { client in
            let authenticator = TestAuthenticator()
            let registered = try await client.register("alice", with: authenticator)
            let bearer = try #require(registered.json["sessionToken"] as? String)
            let options = try await client.post("/attestation/options", ["username": "alice"], bearer: bearer)
            #expect(options.isOK, "\(options.text)")
            // The deletion lands between the options' reading of the user and their saving of the challenge, so the
            // challenge outlives it (the deletion removes the user's pending ceremonies).
            let challengeText = try #require(options.json["challenge"] as? String)
            let challenge = try #require(Base64URL.decode(challengeText))
            let pending = try #require(try await harness.store.takePendingCeremony(challengeHash: Digest.sha256(challenge)))
            #expect(try await client.send(.delete, "/admin/v1/users/alice", headers: Self.admin(key)).isOK)
            try await harness.store.savePendingCeremony(pending)

            let result = try await client.post("/attestation/result", try TestAuthenticator().register(options.json), bearer: bearer)
            #expect(result.status == .forbidden, "\(result.text)")
            #expect(result.errorMessage == #"the account "alice" was deleted while this passkey was being registered; start again"#)
            #expect(try await client.send(.get, "/admin/v1/users/alice", headers: Self.admin(key)).status == .notFound)
            // A new registration makes a new account, with a new handle.
            let again = try await client.register("alice", with: TestAuthenticator())
            #expect(again.isOK, "\(again.text)")
            let user = try await client.send(.get, "/admin/v1/users/alice", headers: Self.admin(key)).json["user"] as? [String: Any]
            #expect(user?["userHandle"] as? String != (options.json["user"] as? [String: Any])?["id"] as? String)
        }
    }

    /// A phone is lost: the backend sees its device key among the user's keys and removes it, and it no longer signs in.
    @Test func theBackendRemovesADeviceKeyOfALostPhone() async throws {
        let (harness, key) = try await Self.harness()
        let folder = try AppRouteTests.folder()
        try await harness.run { client in
            let (_, keyID, _) = try await AppRouteTests.enrolDeviceKey(client, folder: folder)
            let list = try await client.send(.get, "/admin/v1/users/grace/credentials", headers: Self.admin(key))
            let deviceKeys = list.json["deviceKeys"] as? [[String: Any]] ?? []
            #expect(deviceKeys.map { $0["keyId"] as? String } == [keyID], "\(list.text)")
            #expect((list.json["credentials"] as? [[String: Any]])?.count == 1)

            let unknown = try await client.send(.delete, "/admin/v1/users/grace/device-keys/AAAA", headers: Self.admin(key))
            #expect(unknown.status == .notFound && unknown.json["errorMessage"] as? String == "user \"grace\" has no device key with this id")
            _ = try await client.register("henry", with: TestAuthenticator())
            #expect(try await client.send(.delete, "/admin/v1/users/henry/device-keys/\(keyID)", headers: Self.admin(key)).status == .notFound,
                    "another user's key is not theirs to remove")
            #expect(try await client.send(.delete, "/admin/v1/users/grace/device-keys/\(keyID)", headers: Self.admin(key)).isOK)
            let options = try await client.post("/device-keys/sign-in/options", ["keyId": keyID])
            #expect(options.json["reason"] as? String == "unknownDeviceKey", "\(options.text)")
            let events = try await client.send(.get, "/admin/v1/events?user=grace", headers: Self.admin(key)).json["events"] as? [[String: Any]] ?? []
            let removal = try #require(events.first { $0["type"] as? String == "device_key.removed" })
            #expect((removal["actor"] as? [String: Any])?["type"] as? String == "admin", "\(removal)")
        }
    }

    /// A disabled account signs in with nothing, keeps no session and adds no key, until it is enabled again.
    @Test func aDisabledAccountCannotSignInOrAddKeysUntilEnabled() async throws {
        let (harness, key) = try await Self.harness()
        try await harness.run { client in
            let authenticator = TestAuthenticator()
            let registered = try await client.register("alice", with: authenticator)
            let bearer: HTTPFields = [.authorization: "Bearer \(try #require(registered.json["sessionToken"] as? String))"]
            let ticket = try #require(try await client.send(
                .post, "/admin/v1/users/alice/enrollment-tickets", headers: Self.admin(key)).json["ticket"] as? String)
            let pendingTicketOptions = try await client.post("/attestation/options", ["enrollmentTicket": ticket])

            let disabled = try await client.send(.patch, "/admin/v1/users/alice", json: ["disabled": true], headers: Self.admin(key))
            #expect((disabled.json["user"] as? [String: Any])?["disabled"] as? Bool == true, "\(disabled.text)")
            #expect(try await client.send(.get, "/session", headers: bearer).status == .unauthorized, "its sessions end")
            for name in ["alice", nil] as [String?] {
                let refused = try await client.signIn(name, with: authenticator)
                #expect(refused.status == .forbidden && refused.json["reason"] as? String == "accountDisabled", "\(refused.text)")
                #expect(refused.json["idToken"] == nil && refused.json["sessionToken"] == nil)
            }
            let withTicket = try await client.post("/attestation/options", ["enrollmentTicket": ticket])
            #expect(withTicket.status == .forbidden && withTicket.json["reason"] as? String == "accountDisabled", "\(withTicket.text)")
            let newTicket = try await client.send(.post, "/admin/v1/users/alice/enrollment-tickets", headers: Self.admin(key))
            #expect(newTicket.status == .conflict && newTicket.json["reason"] as? String == "accountDisabled", "\(newTicket.text)")
            let late = try await client.post("/attestation/result", try TestAuthenticator().register(pendingTicketOptions.json))
            #expect(late.status == .forbidden && late.json["reason"] as? String == "accountDisabled", "\(late.text)")
            let events = try await client.send(.get, "/admin/v1/events?user=alice", headers: Self.admin(key)).json["events"] as? [[String: Any]] ?? []
            #expect(events.first { $0["type"] as? String == "user.updated" }?["detail"] as? String == "disabled the account")
            #expect(events.first { $0["type"] as? String == "session.ended" }?["detail"] as? String == "every session ended: the account was disabled")
            #expect(events.filter { $0["type"] as? String == "sign_in.refused" }.count == 2, "refusals after a valid signature are recorded")

            let enabled = try await client.send(.patch, "/admin/v1/users/alice", json: ["disabled": false], headers: Self.admin(key))
            #expect((enabled.json["user"] as? [String: Any])?["disabled"] as? Bool == false)
            #expect(try await client.send(.get, "/session", headers: bearer).status == .unauthorized, "ended sessions stay ended")
            #expect(try await client.signIn(nil, with: authenticator).isOK)
            #expect(try await client.send(.patch, "/admin/v1/users/alice", json: ["disabled": "yes"], headers: Self.admin(key)).status == .badRequest)
        }
    }

    @Test func everySignInCarriesAVerifiableToken() async throws {
        let (harness, _) = try await Self.harness {
            $0.tokenIssuer = "https://login.example.com"
            $0.tokenAudience = ["api.example.com", "billing"]
            $0.tokenLifetime = 120
        }
        try await harness.run { client in
            let authenticator = TestAuthenticator()
            let registered = try await client.register("alice", with: authenticator)
            let keySet = try await client.send(.get, "/.well-known/jwks.json")
            #expect(keySet.headers[.cacheControl] == KeySetController.cacheControl)
            let keys = keySet.json["keys"] as? [[String: Any]] ?? []
            #expect(keys.count == 1)
            #expect(keys.first?["alg"] as? String == "ES256")
            #expect(keys.first?["use"] as? String == "sig")

            let reply = try await client.signIn(nil, with: authenticator)
            let (header, claims) = try SignInTokenChecks.verify(try #require(reply.json["idToken"] as? String), with: keys)
            #expect(header["kid"] as? String == keys.first?["kid"] as? String)
            #expect(claims["iss"] as? String == "https://login.example.com")
            #expect(claims["aud"] as? [String] == ["api.example.com", "billing"])
            let user = try #require(try await harness.store.user(named: "alice"))
            #expect(claims["sub"] as? String == Base64URL.encode(user.handle))
            #expect(claims["cred"] as? String == registered.json["credentialId"] as? String)
            #expect(claims["ext_id"] == nil)
            let issuedAt = try #require(claims["iat"] as? Int)
            #expect(claims["exp"] as? Int == issuedAt + 120)
            #expect(claims["auth_time"] as? Int == issuedAt)
            #expect(claims["amr"] as? [String] == ["pop", "user", "mfa"], "the test authenticator sets UV")
            #expect((claims["jti"] as? String)?.isEmpty == false)
            let other = try await client.signIn("alice", with: authenticator)
            #expect((try SignInTokenChecks.verify(other.json["idToken"] as? String ?? "", with: keys).claims["jti"] as? String) != claims["jti"] as? String)
        }
    }

    @Test func aSeparateAdminListenerTakesTheAdminAPIOffTheMainOne() async throws {
        let (harness, key) = try await Self.harness { $0.adminAddress = ListenAddress("127.0.0.1:9090") }
        try await harness.run { client in
            let reply = try await client.send(.get, "/admin/v1/users/alice", headers: Self.admin(key))
            #expect(reply.status == .notFound)
        }
        let adminSite = try LatchkeyServer.adminSite(
            configuration: harness.configuration, store: harness.store, attestationTrust: AttestationTrust(policy: harness.configuration.attestation),
            logger: RouteHarness.logger)
        try await harness.run(adminSite) { client in
            let created = try await client.send(.post, "/admin/v1/users", json: ["username": "alice"], headers: Self.admin(key))
            #expect(created.status == .created)
            let anonymous = try await client.send(.get, "/admin/v1/users/alice")
            #expect(anonymous.status == .unauthorized)
            let health = try await client.send(.get, "/healthz")
            #expect(health.status == .notFound, "the admin API and nothing else")
            let head = try await client.send(.head, "/admin/v1/users/alice", headers: Self.admin(key))
            #expect(head.status == .ok, "HEAD wherever GET")
            let badName = try await client.send(.get, "/admin/v1/users/%C3%28", headers: Self.admin(key))
            #expect(badName.status == .badRequest)
        }
    }
}

/// Conditional create (WebAuthn Level 3): a passkey made without asking may lack user presence,
/// only for a ceremony asked as conditional by a signed-in user or a ticket holder.
@Suite("Conditional create")
struct ConditionalCreateRouteTests {
    /// UV and AT set, UP clear: what an automatic passkey upgrade reports.
    static let silentFlags: UInt8 = 0x44

    @Test func aSignedInUserMayAddAPasskeyWithoutUserPresenceOnlyWhenAskedAsConditional() async throws {
        let harness = try RouteHarness { $0.userVerification = .required }
        try await harness.run { client in
            let authenticator = TestAuthenticator()
            let session = try #require(try await client.register("alice", with: authenticator).json["sessionToken"] as? String)

            // A modal ceremony without UP is refused, as ever.
            let modal = try await client.post("/attestation/options", ["username": "alice"], bearer: session)
            let refused = try await client.post("/attestation/result", try authenticator.register(modal.json, flags: Self.silentFlags), bearer: session)
            #expect(refused.status == .badRequest)
            #expect(refused.errorMessage.contains("UP flag is not set"), "\(refused.errorMessage)")

            // Conditional: accepted without UP, and without the UV minimum.
            let options = try await client.post("/attestation/options", ["username": "alice", "mediation": "conditional"], bearer: session)
            #expect(options.isOK, "\(options.text)")
            let accepted = try await client.post("/attestation/result", try authenticator.register(options.json, flags: 0x40), bearer: session)
            #expect(accepted.isOK, "\(accepted.text)")
            #expect(try await harness.store.credentials(ofUser: try #require(try await harness.store.user(named: "alice")).handle).count == 2)
        }
    }

    @Test func nobodyElseMayAskForAConditionalCreate() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            _ = try await client.register("alice", with: TestAuthenticator())
            // A new name, and someone else's without their session.
            let newName = try await client.post("/attestation/options", ["username": "bob", "mediation": "conditional"])
            #expect(newName.status == .forbidden)
            #expect(newName.errorMessage.contains("only for a signed-in user"), "\(newName.errorMessage)")
            let othersName = try await client.post("/attestation/options", ["username": "alice", "mediation": "conditional"])
            #expect(othersName.status == .forbidden)
            let silent = try await client.post("/attestation/options", ["username": "carol", "mediation": "silent"])
            #expect(silent.status == .badRequest)
            let unknown = try await client.post("/attestation/options", ["username": "carol", "mediation": "quietly"])
            #expect(unknown.status == .badRequest)
            #expect(unknown.errorMessage.contains("mediation"), "\(unknown.errorMessage)")
        }
    }

    @Test func aTicketHolderMayAskForAConditionalCreate() async throws {
        let (harness, key) = try await AdminRouteTests.harness { $0.registration = .tickets }
        try await harness.run { client in
            _ = try await client.send(.post, "/admin/v1/users", json: ["username": "alice"], headers: AdminRouteTests.admin(key))
            let ticket = try await client.send(.post, "/admin/v1/users/alice/enrollment-tickets", headers: AdminRouteTests.admin(key))
            let options = try await client.post(
                "/attestation/options", ["enrollmentTicket": ticket.json["ticket"] as? String ?? "", "mediation": "conditional"])
            #expect(options.isOK, "\(options.text)")
            let result = try await client.post("/attestation/result", try TestAuthenticator().register(options.json, flags: Self.silentFlags))
            #expect(result.isOK, "\(result.text)")
        }
    }
}
