import Foundation
import LatchkeyStore
import Testing

/// The contract for the OpenID provider's clients and grants: round trips, the compare-and-set a code's exchange and a
/// refresh rest on, revocation, and grants going with their client, their user and their tenant.
extension StoreContractTests {
    static func oauthClient(_ id: String, secret: [UInt8]? = Fixtures.bytes(0xC1)) -> OAuthClientRecord {
        OAuthClientRecord(
            clientID: id, name: "Client \(id) ✓", secretHash: secret, redirectURIs: ["https://a.example/cb", "com.example.app:/cb"],
            postLogoutRedirectURIs: ["https://a.example/bye"], scopes: ["openid", "profile", "offline_access"], consent: true,
            accessTokenLifetime: 600, refreshTokenLifetime: 86_400, createdAt: Fixtures.now, updatedAt: Fixtures.now)
    }

    static func grant(_ id: UInt8, client: String, of user: UserRecord, expiresIn seconds: TimeInterval = 60) -> OAuthGrantRecord {
        OAuthGrantRecord(
            id: Fixtures.bytes(id, count: 16), clientID: client, userHandle: user.handle, scopes: ["openid", "profile"],
            redirectURI: "https://a.example/cb", nonce: "nonce", codeChallenge: String(repeating: "c", count: 43),
            authTime: Fixtures.now, methods: ["hwk", "user", "mfa"], codeHash: Fixtures.bytes(0xC0 &+ id),
            codeExpiresAt: Fixtures.now.addingTimeInterval(seconds), createdAt: Fixtures.now, expiresAt: Fixtures.now.addingTimeInterval(seconds))
    }

    @Test(arguments: StoreBackend.all)
    func oauthClientsRoundTripChangeAndGo(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let client = Self.oauthClient("app"), native = Self.oauthClient("native", secret: nil)
        try await store.saveOAuthClient(client, recording: [])
        try await store.saveOAuthClient(native, recording: [])
        #expect(try await store.oauthClient(id: "app") == client)
        #expect(try await store.oauthClient(id: "native")?.isPublic == true)
        #expect(try await store.oauthClients(limit: 10).map(\.clientID) == ["app", "native"])
        await #expect(throws: StoreError.self) { try await store.saveOAuthClient(client, recording: []) }
        var changed = client
        changed.name = "Renamed"
        changed.redirectURIs = ["https://b.example/cb"]
        #expect(try await store.updateOAuthClient(changed, recording: []))
        #expect(try await store.oauthClient(id: "app") == changed)
        #expect(try await store.deleteOAuthClient(id: "app", recording: []))
        #expect(try await store.deleteOAuthClient(id: "app", recording: []) == false)
        #expect(try await store.oauthClient(id: "app") == nil)
    }

    @Test(arguments: StoreBackend.all)
    func aGrantChangesOnlyFromTheRevisionItWasReadAt(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        try await store.registerNew(alice, with: Fixtures.credential(7, of: alice), session: Fixtures.session(1, of: alice))
        try await store.saveOAuthClient(Self.oauthClient("app"), recording: [])
        let grant = Self.grant(1, client: "app", of: alice)
        try await store.saveOAuthGrant(grant, recording: [])
        let read = try #require(try await store.oauthGrant(id: grant.id))
        #expect(read.grant == grant && read.user == alice && read.client.clientID == "app")

        // Two exchanges of one code read the same revision: one writes, the other finds it moved on.
        var first = read.grant, second = read.grant
        first.codeUsedAt = Fixtures.now
        first.accessHash = Fixtures.bytes(0xA1)
        first.accessExpiresAt = Fixtures.now.addingTimeInterval(600)
        first.spentRefreshHashes = [Fixtures.bytes(0xB1), Fixtures.bytes(0xB2)]
        second.codeUsedAt = Fixtures.now
        second.accessHash = Fixtures.bytes(0xA2)
        #expect(try await store.replaceOAuthGrant(first, recording: []))
        #expect(try await store.replaceOAuthGrant(second, recording: []) == false)
        let stored = try #require(try await store.oauthGrant(id: grant.id)).grant
        #expect(stored.accessHash == Fixtures.bytes(0xA1) && stored.revision == grant.revision + 1)
        #expect(stored.spentRefreshHashes == [Fixtures.bytes(0xB1), Fixtures.bytes(0xB2)])

        #expect(try await store.revokeOAuthGrant(id: grant.id, now: Fixtures.now, recording: []))
        #expect(try await store.revokeOAuthGrant(id: grant.id, now: Fixtures.now, recording: []) == false, "revoked once")
        let revoked = try #require(try await store.oauthGrant(id: grant.id)).grant
        #expect(revoked.revokedAt == Fixtures.now && revoked.expiresAt <= Fixtures.now.addingTimeInterval(86_400))
    }

    @Test(arguments: StoreBackend.all)
    func aGrantsEventItsCountAndItsDeliveriesAreWrittenOnlyWithIt(backend: StoreBackend) async throws {
        let store = try await backend.makeWithOutbox(WebhookOutbox(receivers: Self.receivers))
        let alice = Fixtures.user("alice", handle: 1)
        try await store.registerNew(alice, with: Fixtures.credential(7, of: alice), session: Fixtures.session(1, of: alice))
        try await store.saveOAuthClient(Self.oauthClient("app"), recording: [])
        let grant = Self.grant(1, client: "app", of: alice)
        try await store.saveOAuthGrant(grant, recording: [])
        let before = try await store.webhookOutboxStatus().depth
        func issued(_ tag: Int) -> SecurityEvent {
            var event = Self.event(.oauthTokenIssued, tag, user: alice)
            event.detail = "client app (Client app)"
            return event
        }

        var exchanged = grant
        exchanged.codeUsedAt = Fixtures.now
        #expect(try await store.replaceOAuthGrant(exchanged, recording: [issued(1)]))
        #expect(try await store.replaceOAuthGrant(exchanged, recording: [issued(2)]) == false, "the revision moved on")

        #expect(try await store.securityEvent(id: issued(1).id)?.detail == "client app (Client app)")
        #expect(try await store.securityEvent(id: issued(2).id) == nil, "no event for the write that lost")
        #expect(try await store.webhookOutboxStatus().depth == before + Self.receivers.count, "one delivery per receiver, once")
        let day = StatisticsDay(Fixtures.now)
        let signIns = try await store.statistics(from: day, through: day).rows.filter { $0.metric == .openIDSignIns }
        #expect(signIns.map(\.dimension) == ["app"] && signIns.map(\.count) == [1], "counted once, by client")
    }

    @Test(arguments: StoreBackend.all)
    func aDeviceAuthorizationIsDecidedOnceBeforeItExpiresWithItsGrant(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        try await store.registerNew(alice, with: Fixtures.credential(7, of: alice), session: Fixtures.session(1, of: alice))
        try await store.saveOAuthClient(Self.oauthClient("tv"), recording: [])
        func device(_ id: UInt8, userCode: UInt8) -> OAuthDeviceAuthorizationRecord {
            OAuthDeviceAuthorizationRecord(
                grantID: Fixtures.bytes(id, count: 16), deviceCodeHash: Fixtures.bytes(0xD0 &+ id), userCodeHash: Fixtures.bytes(userCode),
                clientID: "tv", scopes: ["openid", "offline_access"], createdAt: Fixtures.now, expiresAt: Fixtures.now.addingTimeInterval(600),
                interval: 5)
        }
        let first = device(1, userCode: 0x51), second = device(2, userCode: 0x52)
        try await store.saveOAuthDeviceAuthorization(first)
        try await store.saveOAuthDeviceAuthorization(second)
        await #expect(throws: StoreError.self, "a user code in use") { try await store.saveOAuthDeviceAuthorization(device(3, userCode: 0x51)) }
        #expect(try await store.oauthDeviceAuthorization(grantID: first.grantID) == first)
        #expect(try await store.oauthDeviceAuthorization(userCodeHash: Fixtures.bytes(0x52)) == second)
        #expect(try await store.oauthDeviceAuthorization(userCodeHash: Fixtures.bytes(0x53)) == nil)

        try await store.noteOAuthDevicePoll(grantID: first.grantID, at: Fixtures.now.addingTimeInterval(7), interval: 10)
        var polled = first
        (polled.polledAt, polled.interval) = (Fixtures.now.addingTimeInterval(7), 10)
        #expect(try await store.oauthDeviceAuthorization(grantID: first.grantID) == polled)

        var grant = Self.grant(1, client: "tv", of: alice)
        grant.codeHash = first.deviceCodeHash
        let later = Fixtures.now.addingTimeInterval(30)
        #expect(try await store.decideOAuthDeviceAuthorization(grantID: first.grantID, .approved, by: alice.handle, grant: grant, now: later))
        #expect(try await store.decideOAuthDeviceAuthorization(grantID: first.grantID, .denied, by: alice.handle, grant: nil, now: later) == false,
                "decided once")
        let decided = try #require(try await store.oauthDeviceAuthorization(grantID: first.grantID))
        #expect(decided.decision == .approved && decided.userHandle == alice.handle)
        #expect(try await store.oauthGrant(id: first.grantID)?.grant == grant, "the grant written with the approval")
        // Past its expiry, nothing decides it, and nothing is written.
        let expired = Fixtures.now.addingTimeInterval(600)
        var other = Self.grant(2, client: "tv", of: alice)
        other.codeHash = second.deviceCodeHash
        #expect(try await store.decideOAuthDeviceAuthorization(grantID: second.grantID, .approved, by: alice.handle, grant: other, now: expired) == false)
        #expect(try await store.oauthGrant(id: second.grantID) == nil)

        // They go with their client.
        #expect(try await store.deleteOAuthClient(id: "tv", recording: []))
        #expect(try await store.oauthDeviceAuthorization(grantID: second.grantID) == nil)
    }

    @Test(arguments: StoreBackend.all)
    func grantsGoWithTheirClientTheirUserAndTheirTenant(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1), bob = Fixtures.user("bob", handle: 2)
        try await store.registerNew(alice, with: Fixtures.credential(7, of: alice), session: Fixtures.session(1, of: alice))
        try await store.registerNew(bob, with: Fixtures.credential(8, of: bob), session: Fixtures.session(2, of: bob))
        try await store.saveOAuthClient(Self.oauthClient("one"), recording: [])
        try await store.saveOAuthClient(Self.oauthClient("two"), recording: [])
        try await store.saveOAuthGrant(Self.grant(1, client: "one", of: alice), recording: [])
        try await store.saveOAuthGrant(Self.grant(2, client: "two", of: alice), recording: [])
        try await store.saveOAuthGrant(Self.grant(3, client: "two", of: bob), recording: [])
        await #expect(throws: StoreError.self) { try await store.saveOAuthGrant(Self.grant(4, client: "none", of: bob), recording: []) }

        #expect(try await store.revokeOAuthGrants(ofUser: bob.handle, now: Fixtures.now) == 1)
        #expect(try await store.oauthGrant(id: Fixtures.bytes(3, count: 16))?.grant.revokedAt != nil)
        #expect(try await store.deleteOAuthClient(id: "one", recording: []))
        #expect(try await store.oauthGrant(id: Fixtures.bytes(1, count: 16)) == nil, "gone with its client")
        _ = try await store.deleteUser(handle: alice.handle)
        #expect(try await store.oauthGrant(id: Fixtures.bytes(2, count: 16)) == nil, "gone with its user")

        // Another tenant sees neither the clients nor the grants.
        let other = store.scoped(to: try #require(TenantID("acme")))
        #expect(try await other.oauthClient(id: "two") == nil)
        #expect(try await other.oauthGrant(id: Fixtures.bytes(3, count: 16)) == nil)
        #expect(try await other.revokeOAuthGrant(id: Fixtures.bytes(3, count: 16), now: Fixtures.now, recording: []) == false)
    }

    @Test(arguments: StoreBackend.all)
    func thePurgeTakesGrantsPastTheirExpiry(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        try await store.registerNew(alice, with: Fixtures.credential(7, of: alice), session: Fixtures.session(1, of: alice, expiresIn: 86_400))
        try await store.saveOAuthClient(Self.oauthClient("app"), recording: [])
        try await store.saveOAuthGrant(Self.grant(1, client: "app", of: alice, expiresIn: 60), recording: [])
        try await store.saveOAuthGrant(Self.grant(2, client: "app", of: alice, expiresIn: 3_600), recording: [])
        try await store.purgeExpired(now: Fixtures.now.addingTimeInterval(120))
        #expect(try await store.oauthGrant(id: Fixtures.bytes(1, count: 16)) == nil)
        #expect(try await store.oauthGrant(id: Fixtures.bytes(2, count: 16)) != nil)
    }

    @Test(arguments: StoreBackend.all)
    func aConsentIsRememberedPerUserAndClientAndGoesWithTheClient(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        try await store.registerNew(alice, with: Fixtures.credential(7, of: alice), session: Fixtures.session(1, of: alice))
        try await store.saveOAuthClient(Self.oauthClient("app"), recording: [])
        #expect(try await store.oauthConsent(ofUser: alice.handle, client: "app") == nil)
        try await store.saveOAuthConsent(ofUser: alice.handle, client: "app", scopes: ["openid"], at: Fixtures.now)
        try await store.saveOAuthConsent(ofUser: alice.handle, client: "app", scopes: ["openid", "profile"], at: Fixtures.now)
        #expect(try await store.oauthConsent(ofUser: alice.handle, client: "app") == ["openid", "profile"])
        #expect(try await store.deleteOAuthClient(id: "app", recording: []))
        #expect(try await store.oauthConsent(ofUser: alice.handle, client: "app") == nil)
    }

    @Test(arguments: StoreBackend.all)
    func groupsAreReplacedWholeAndGoWithTheirUser(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        try await store.registerNew(alice, with: Fixtures.credential(7, of: alice), session: Fixtures.session(1, of: alice))
        #expect(try await store.setGroups(["staff", "ops", "staff"], ofUser: alice.handle, recording: []))
        #expect(try await store.groups(ofUser: alice.handle) == ["ops", "staff"])
        #expect(try await store.setGroups(["readers"], ofUser: alice.handle, recording: []))
        #expect(try await store.groups(ofUser: alice.handle) == ["readers"])
        #expect(try await store.setGroups(["x"], ofUser: Fixtures.bytes(9, count: 64), recording: []) == false)
        #expect(try await store.groups(ofUser: alice.handle, in: "acme", of: store).isEmpty)
        _ = try await store.deleteUser(handle: alice.handle)
        #expect(try await store.groups(ofUser: alice.handle).isEmpty)
    }

    @Test(arguments: StoreBackend.all)
    func aContactIsReplacedOrRemovedWithItsEventOnlyForAUserThatExists(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        try await store.registerNew(alice, with: Fixtures.credential(7, of: alice), session: Fixtures.session(1, of: alice))
        let email = UserContact(kind: .email, value: "älice@example.com"), phone = UserContact(kind: .phone, value: "+4915112345678")
        #expect(try await store.setContact(email, ofUser: alice.handle, recording: [Self.event(.userUpdated, 1, user: alice)]))
        #expect(try await store.contact(ofUser: alice.handle) == email)
        #expect(try await store.setContact(phone, ofUser: alice.handle, recording: []))
        #expect(try await store.contact(ofUser: alice.handle) == phone)
        #expect(try await store.setContact(nil, ofUser: alice.handle, recording: []))
        #expect(try await store.contact(ofUser: alice.handle) == nil)
        let nobody = Fixtures.user("nobody", handle: 9)
        #expect(try await store.setContact(email, ofUser: nobody.handle, recording: [Self.event(.userUpdated, 2, user: nobody)]) == false)
        #expect(try await store.contact(ofUser: nobody.handle) == nil)
        #expect(try await store.securityEvent(id: Self.event(.userUpdated, 1, user: alice).id) != nil)
        #expect(try await store.securityEvent(id: Self.event(.userUpdated, 2, user: nobody).id) == nil, "no event for nothing changed")
    }
}

private extension LatchkeyStore {
    /// `handle`'s groups as tenant `tenant` sees them.
    func groups(ofUser handle: [UInt8], in tenant: String, of store: any LatchkeyStore) async throws -> [String] {
        try await store.scoped(to: try #require(TenantID(tenant))).groups(ofUser: handle)
    }
}
