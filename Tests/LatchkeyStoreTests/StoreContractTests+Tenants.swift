import Foundation
import LatchkeyStore
import Testing
import WebAuthn

/// Tenants: everything tenant A keeps is out of tenant B's reach, for reading and for changing, and the
/// names a client or backend chooses are unique within a tenant only.
extension StoreContractTests {
    static let otherTenant = TenantID("tenant-b")!

    /// Everything of one person in one tenant: a user with a passkey, a session, a pending ceremony, an
    /// enrollment ticket, a device key, an App Attest key, an admin key, a signing key, a secret and an event.
    struct TenantBelongings {
        let alice = Fixtures.user("alice", handle: 1)
        var credential: CredentialRecord { Fixtures.credential(7, of: alice) }
        var session: SessionRecord { Fixtures.session(2, of: alice) }
        var ceremony: PendingCeremony { Fixtures.registration(3, for: alice) }
        var ticket: EnrollmentTicketRecord {
            EnrollmentTicketRecord(hash: Fixtures.bytes(4), userHandle: alice.handle, createdAt: Fixtures.now, expiresAt: Fixtures.now + 600)
        }
        var deviceKey: DeviceKeyRecord { Fixtures.deviceKey(5, of: alice) }
        var appAttestKey: AppAttestKeyRecord {
            AppAttestKeyRecord(keyID: Fixtures.bytes(6), publicKey: [4, 1], appID: "TEAM.app", environment: "production", receipt: [1], createdAt: Fixtures.now)
        }
        var adminKey: AdminKeyRecord { AdminKeyRecord(name: "backend", keyHash: Fixtures.bytes(8), createdAt: Fixtures.now) }
        var signingKey: SigningKeyRecord { SigningKeyRecord(generation: 1, keyID: "kid-a", privateKey: [1, 2], createdAt: Fixtures.now) }
        var event: SecurityEvent {
            SecurityEvent(id: "event-a", type: .userCreated, occurredAt: Fixtures.now, userHandle: alice.handle, actor: .system("test"))
        }

        func store(in store: any LatchkeyStore) async throws {
            try await store.registerNew(alice, with: credential, session: session)
            try await store.savePendingCeremony(ceremony)
            try await store.saveEnrollmentTicket(ticket)
            try await store.saveDeviceKey(deviceKey, spendingTicket: nil)
            try await store.saveAppAttestKey(appAttestKey)
            try await store.saveAdminKey(adminKey)
            #expect(try await store.addSigningKey(signingKey))
            try await store.recordEvent(event)
        }
    }

    @Test(arguments: StoreBackend.all)
    func anotherTenantReadsNothingOfTheDefaultTenants(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let a = TenantBelongings()
        try await a.store(in: store)
        let b = store.scoped(to: Self.otherTenant)
        #expect(b.tenant == Self.otherTenant && store.tenant == .default)

        #expect(try await b.user(named: "alice") == nil)
        #expect(try await b.user(handle: a.alice.handle) == nil)
        #expect(try await b.userWithCredentials(named: "alice") == nil)
        #expect(try await b.credentials(ofUser: a.alice.handle).isEmpty)
        #expect(try await b.credential(id: a.credential.id) == nil)
        #expect(try await b.passkeyShapes() == PasskeyShapes())
        #expect(try await b.users(after: nil, limit: 10).isEmpty)
        #expect(try await b.session(tokenHash: a.session.tokenHash, now: Fixtures.now) == nil)
        #expect(try await b.pendingChallenges(among: [a.ceremony.challengeHash]).isEmpty)
        let lookup = try await b.signInLookup(challengeHash: a.ceremony.challengeHash, credentialID: a.credential.id)
        #expect(lookup.ceremony == nil && lookup.credential == nil && lookup.owner == nil)
        #expect(try await b.registrationLookup(challengeHash: a.ceremony.challengeHash).ceremony == nil)
        #expect(try await b.enrollmentTicket(hash: a.ticket.hash) == nil)
        #expect(try await b.deviceKey(id: a.deviceKey.id) == nil)
        #expect(try await b.deviceKeys(ofUser: a.alice.handle).isEmpty)
        #expect(try await b.appAttestKey(id: a.appAttestKey.keyID) == nil)
        #expect(try await b.adminKeys().isEmpty)
        #expect(try await b.useAdminKey(hash: a.adminKey.keyHash, now: Fixtures.now) == nil)
        #expect(try await b.signingKeys().isEmpty)
        #expect(try await b.securityEvents(SecurityEventQuery()).isEmpty)
        #expect(try await b.securityEvent(id: a.event.id) == nil)
        #expect(try await b.webhookOutboxStatus().depth == 0)

        // The default tenant still has all of it.
        #expect(try await store.user(named: "alice") == a.alice)
        #expect(try await store.credential(id: a.credential.id) == a.credential)
        #expect(try await store.adminKeys().map(\.name) == ["backend"])
        #expect(try await store.signingKeys().map(\.keyID) == ["kid-a"])
        #expect(try await !store.securityEvents(SecurityEventQuery()).isEmpty)
    }

    @Test(arguments: StoreBackend.all)
    func anotherTenantChangesNothingOfTheDefaultTenants(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let a = TenantBelongings()
        try await a.store(in: store)
        let b = store.scoped(to: Self.otherTenant)
        let owner = a.alice.handle

        #expect(try await b.takePendingCeremony(challengeHash: a.ceremony.challengeHash) == nil)
        #expect(try await b.renameCredential(id: a.credential.id, ownedBy: owner, name: "mine") == nil)
        #expect(try await b.deleteCredential(id: a.credential.id, ownedBy: owner) == .notFound)
        #expect(try await !b.deleteCredentialEvenIfLast(id: a.credential.id, ownedBy: owner))
        #expect(try await b.deleteSessions(ofUser: owner) == 0)
        try await b.deleteSessions(tokenHashes: [a.session.tokenHash])
        #expect(try await b.revokeEnrollmentTickets(ofUser: owner, now: Fixtures.now) == 0)
        #expect(try await b.renameDeviceKey(id: a.deviceKey.id, ownedBy: owner, name: "mine") == nil)
        #expect(try await !b.recordDeviceKeySignIn(id: a.deviceKey.id, at: Fixtures.now, session: Fixtures.session(9, of: a.alice)))
        #expect(try await !b.deleteDeviceKey(id: a.deviceKey.id, ownedBy: owner))
        #expect(try await !b.updateAppAttestCounters(id: a.appAttestKey.keyID, from: (0, 1), to: (1, 3), at: Fixtures.now))
        #expect(try await !b.deleteAdminKey(named: a.adminKey.name))
        #expect(try await !b.updateUser(Fixtures.user("mallory", handle: 1), from: a.alice, recording: []))
        #expect(try await !b.recordEvent(a.event, whileItsUserExists: true))
        #expect(try await b.deleteUser(handle: owner) == nil)
        let spent = try await b.recordAnswered(Fixtures.signIn(a.credential, from: 0, to: 1, session: Fixtures.session(10, of: a.alice)))
        #expect(spent == .credentialRemoved)
        let foreignOwner = await #expect(throws: StoreError.self) {
            try await b.register(NewRegistration(credential: Fixtures.credential(11, of: a.alice), newUser: nil, session: nil))
        }
        #expect(foreignOwner?.code == .userNotFound, "\(String(describing: foreignOwner))")

        let credential = try #require(try await store.credential(id: a.credential.id))
        #expect(credential == a.credential)
        #expect(try await store.user(named: "alice") == a.alice)
        #expect(try await store.hasSession(a.session.tokenHash))
        #expect(try await store.pendingChallenges(among: [a.ceremony.challengeHash]) == [a.ceremony.challengeHash])
        #expect(try await store.enrollmentTicket(hash: a.ticket.hash)?.revokedAt == nil)
        #expect(try await store.deviceKey(id: a.deviceKey.id) == a.deviceKey)
        #expect(try await store.appAttestKey(id: a.appAttestKey.keyID)?.counter == 0)
        #expect(try await store.adminKeys().count == 1)
        #expect(try await store.securityEvents(SecurityEventQuery()).count == 1)
    }

    /// Usernames, external IDs, credential, device and App Attest key IDs, admin key names, signing key
    /// generations and secrets are the tenant's own: the same ones in another tenant are someone else's.
    @Test(arguments: StoreBackend.all)
    func twoTenantsKeepTheSameNamesApart(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let b = store.scoped(to: Self.otherTenant)
        try await TenantBelongings().store(in: store)
        var bob = Fixtures.user("alice", handle: 21)
        bob.externalId = "same-external-id"
        var alice = try #require(try await store.user(named: "alice"))
        alice.externalId = "same-external-id"
        #expect(try await store.updateUser(alice, from: TenantBelongings().alice, recording: []))

        let theirs = TenantBelongings()
        try await b.registerNew(bob, with: Fixtures.credential(7, of: bob))
        try await b.saveDeviceKey(Fixtures.deviceKey(5, of: bob), spendingTicket: nil)
        try await b.saveAppAttestKey(theirs.appAttestKey)
        try await b.saveAdminKey(AdminKeyRecord(name: "backend", keyHash: Fixtures.bytes(28), createdAt: Fixtures.now))
        #expect(try await b.addSigningKey(SigningKeyRecord(generation: 1, keyID: "kid-b", privateKey: [3], createdAt: Fixtures.now)))

        #expect(try await b.user(named: "alice")?.handle == bob.handle)
        #expect(try await store.user(named: "alice")?.handle == alice.handle)
        #expect(try await b.user(externalId: "same-external-id")?.handle == bob.handle)
        #expect(try await store.user(externalId: "same-external-id")?.handle == alice.handle)
        #expect(try await b.credential(id: Fixtures.credential(7, of: bob).id)?.userHandle == bob.handle)
        #expect(try await store.credential(id: Fixtures.credential(7, of: bob).id)?.userHandle == alice.handle)
        #expect(try await b.deviceKey(id: Fixtures.bytes(5))?.userHandle == bob.handle)
        #expect(try await b.signingKeys().map(\.keyID) == ["kid-b"])
        #expect(try await store.signingKeys().map(\.keyID) == ["kid-a"])
        #expect(try await b.secret(named: "decoys") != store.secret(named: "decoys"))
        #expect(try await b.secret(named: "decoys") == b.secret(named: "decoys"))

        // Within one tenant the names stay unique, and a user handle across all of them.
        let taken = await #expect(throws: StoreError.self) { try await b.createUser(Fixtures.user("alice", handle: 22)) }
        #expect(taken?.code == .usernameTaken)
        let sameHandle = await #expect(throws: StoreError.self) { try await b.createUser(Fixtures.user("dave", handle: 21)) }
        #expect(sameHandle?.code == .database && sameHandle?.message.contains("handle") == true, "\(String(describing: sameHandle))")
        let otherTenantsHandle = await #expect(throws: StoreError.self) { try await b.createUser(Fixtures.user("erin", handle: 1)) }
        #expect(otherTenantsHandle?.code == .database)
    }
}

// MARK: The tenant directory

extension StoreContractTests {
    static func tenantRecord(_ id: String, hosts: [String], settings: String = #"{"rpID":"shop.test"}"#) -> TenantRecord {
        TenantRecord(id: TenantID(id)!, hosts: hosts, settings: Array(settings.utf8), createdAt: Fixtures.now, updatedAt: Fixtures.now)
    }

    @Test(arguments: StoreBackend.all)
    func tenantsAreMadeChangedAndListedWithTheirRevision(backend: StoreBackend) async throws {
        let store = try await backend.make()
        #expect(try await store.tenantDirectory() == TenantDirectoryRecord(revision: 0, tenants: []))
        let shop = Self.tenantRecord("shop", hosts: ["login.shop.test", "a.shop.test"])
        try await store.createTenant(shop, recording: [])
        let bank = Self.tenantRecord("bank", hosts: ["id.bank.test"])
        try await store.createTenant(bank, recording: [])
        let directory = try await store.tenantDirectory()
        #expect(directory.revision == 2)
        #expect(try await store.tenantRevision() == 2)
        #expect(directory.tenants.map(\.id.rawValue) == ["bank", "shop"])
        #expect(directory.tenants.last?.hosts == ["a.shop.test", "login.shop.test"])
        #expect(try await store.tenant(id: shop.id)?.settings == shop.settings)

        // An ID or a host is one tenant's.
        let sameID = await #expect(throws: StoreError.self) { try await store.createTenant(Self.tenantRecord("shop", hosts: []), recording: []) }
        #expect(sameID?.code == .nameTaken)
        let sameHost = await #expect(throws: StoreError.self) {
            try await store.createTenant(Self.tenantRecord("other", hosts: ["id.bank.test"]), recording: [])
        }
        #expect(sameHost?.code == .nameTaken)
        #expect(try await store.tenant(id: TenantID("other")!) == nil, "nothing of a refused tenant is written")
        #expect(try await store.tenantRevision() == 2)

        // Compare and set.
        let stored = try #require(try await store.tenant(id: shop.id))
        var changed = stored
        changed.hosts = ["shop.test"]
        changed.settings = Array(#"{"rpID":"shop.test","rpName":"Shop"}"#.utf8)
        changed.updatedAt = Fixtures.now + 60
        #expect(try await store.updateTenant(changed, from: stored, recording: []))
        #expect(try await store.tenant(id: shop.id) == changed)
        #expect(try await !store.updateTenant(stored, from: stored, recording: []), "stale: someone changed it meanwhile")
        let takenHost = await #expect(throws: StoreError.self) {
            var moved = changed
            moved.hosts = ["id.bank.test"]
            return try await store.updateTenant(moved, from: changed, recording: [])
        }
        #expect(takenHost?.code == .nameTaken)
        #expect(try await store.tenant(id: shop.id) == changed)
        #expect(try await store.tenantRevision() == 3)
    }

    /// Removing a tenant removes everything it kept and nothing of another's; the event of its removal is the caller's.
    @Test(arguments: StoreBackend.all)
    func removingATenantRemovesEverythingItKeptAndNothingElse(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let shop = Self.tenantRecord("shop", hosts: ["shop.test"])
        try await store.createTenant(shop, recording: [])
        let theirs = store.scoped(to: shop.id)
        let belongings = TenantBelongings()
        try await belongings.store(in: theirs)
        _ = try await theirs.secret(named: "decoys")
        // The default tenant's own alice, with a passkey of the same ID (handles are unique across tenants).
        let alice = Fixtures.user("alice", handle: 31)
        let passkey = Fixtures.credential(7, of: alice)
        try await store.registerNew(alice, with: passkey)
        try await store.recordEvent(SecurityEvent(
            id: "event-default", type: .userCreated, occurredAt: Fixtures.now, userHandle: alice.handle, actor: .system("test")))

        let removal = SecurityEvent(id: "event-removal", type: .tenantDeleted, occurredAt: Fixtures.now, actor: .system("operator"))
        #expect(try await store.deleteTenant(id: shop.id, recording: [removal]))
        #expect(try await !store.deleteTenant(id: shop.id, recording: []))
        #expect(try await store.tenant(id: shop.id) == nil)
        #expect(try await store.tenantDirectory().tenants.isEmpty)
        #expect(try await theirs.user(named: "alice") == nil)
        #expect(try await theirs.credential(id: belongings.credential.id) == nil)
        #expect(try await theirs.session(tokenHash: belongings.session.tokenHash, now: Fixtures.now) == nil)
        #expect(try await theirs.adminKeys().isEmpty)
        #expect(try await theirs.signingKeys().isEmpty)
        #expect(try await theirs.deviceKey(id: belongings.deviceKey.id) == nil)
        #expect(try await theirs.appAttestKey(id: belongings.appAttestKey.keyID) == nil)
        #expect(try await theirs.securityEvents(SecurityEventQuery()).isEmpty)
        #expect(try await theirs.enrollmentTicket(hash: belongings.ticket.hash) == nil)
        // The default tenant's are all there, with the removal's event.
        #expect(try await store.user(named: "alice") == alice)
        #expect(try await store.credential(id: passkey.id) == passkey)
        #expect(try await store.securityEvents(SecurityEventQuery()).map(\.type) == [.tenantDeleted, .userCreated])
        // Its hosts are free again.
        try await store.createTenant(Self.tenantRecord("shop-2", hosts: ["shop.test"]), recording: [])

        // A write that lands after the removal (a request in flight, an instance that had not seen it) is not
        // inherited by a new tenant of the same ID.
        let late = Fixtures.user("late", handle: 41)
        try await theirs.createUser(late)
        try await store.createTenant(Self.tenantRecord("shop", hosts: []), recording: [])
        #expect(try await theirs.user(named: "late") == nil)
    }
}
