import Foundation
import LatchkeyStore
import Testing
import WebAuthn

/// The store contract, continued: what a backend controls through the admin API (users made
/// ahead of their passkeys, admin keys, enrollment tickets) and the token signing keys.
extension StoreContractTests {
    @Test(arguments: StoreBackend.all)
    func usersMadeAheadKeepTheirExternalID(backend: StoreBackend) async throws {
        let store = try await backend.make()
        var alice = Fixtures.user("alice", handle: 1)
        alice.externalId = "crm-42 ünï"
        try await store.createUser(alice)
        #expect(try await store.user(named: "alice") == alice)
        #expect(try await store.user(externalId: "crm-42 ünï") == alice)
        #expect(try await store.user(externalId: "crm-42") == nil)
        #expect(try await store.credentials(ofUser: alice.handle).isEmpty)

        // A user without one, and the uniqueness of both names.
        let bob = Fixtures.user("bob", handle: 2)
        try await store.createUser(bob)
        #expect(try await store.user(handle: bob.handle)?.externalId == nil)
        var sameName = Fixtures.user("alice", handle: 3)
        sameName.externalId = "other"
        await #expect { try await store.createUser(sameName) } throws: { ($0 as? StoreError)?.code == .usernameTaken }
        var sameExternal = Fixtures.user("carol", handle: 4)
        sameExternal.externalId = alice.externalId
        await #expect { try await store.createUser(sameExternal) } throws: { ($0 as? StoreError)?.code == .externalIdTaken }
        #expect(try await store.user(named: "carol") == nil, "a refused user is not written")

        // The first passkey of a user made ahead is registered without creating the user again.
        try await store.register(NewRegistration(credential: Fixtures.credential(7, of: alice), newUser: nil))
        #expect(try await store.credentials(ofUser: alice.handle).count == 1)
        // A registration that creates a user keeps its external ID too.
        var dave = Fixtures.user("dave", handle: 5)
        dave.externalId = "crm-7"
        try await store.registerNew(dave, with: Fixtures.credential(8, of: dave))
        #expect(try await store.user(externalId: "crm-7") == dave)
    }

    @Test(arguments: StoreBackend.all)
    func usersAreListedByUsernameInPagesWithTheirPasskeys(backend: StoreBackend) async throws {
        let store = try await backend.make()
        #expect(try await store.users(after: nil, limit: 10).isEmpty)
        // Bytewise order: upper-case letters never occur (names are folded), "é" sorts after "z".
        let names = ["zoë", "bob", "émile", "alice", "carol"]
        let users = names.enumerated().map { Fixtures.user($0.element, handle: UInt8($0.offset + 1)) }
        for user in users { try await store.createUser(user) }
        let alice = users[3]
        try await store.register(NewRegistration(credential: Fixtures.credential(7, of: alice), newUser: nil))
        try await store.register(NewRegistration(credential: Fixtures.detailedCredential(8, of: alice), newUser: nil))

        let first = try await store.users(after: nil, limit: 2)
        #expect(first.map(\.user.username) == ["alice", "bob"])
        #expect(first[0] == UserOverview(user: alice, passkeys: 2, lastSignInAt: Fixtures.now.addingTimeInterval(-60)))
        #expect(first[1] == UserOverview(user: users[1], passkeys: 0, lastSignInAt: nil))
        #expect(try await store.users(after: "bob", limit: 2).map(\.user.username) == ["carol", "zoë"])
        #expect(try await store.users(after: "zoë", limit: 2).map(\.user.username) == ["émile"])
        #expect(try await store.users(after: "émile", limit: 2).isEmpty)

        // A device key's sign-in counts as one: bob has only a device key, alice signs in with hers later.
        let bob = users[1]
        try await store.saveDeviceKey(Fixtures.deviceKey(1, of: bob), spendingTicket: nil)
        try await store.saveDeviceKey(Fixtures.deviceKey(2, of: alice), spendingTicket: nil)
        #expect(try await store.recordDeviceKeySignIn(id: Fixtures.deviceKey(1, of: bob).id, at: Fixtures.now, session: Fixtures.session(1, of: bob)))
        let later = Fixtures.now.addingTimeInterval(60)
        #expect(try await store.recordDeviceKeySignIn(id: Fixtures.deviceKey(2, of: alice).id, at: later, session: Fixtures.session(2, of: alice)))
        let again = try await store.users(after: nil, limit: 2)
        #expect(again.map(\.lastSignInAt) == [later, Fixtures.now])
        #expect(again.map(\.passkeys) == [2, 0], "device keys are not passkeys")
    }

    @Test(arguments: StoreBackend.all)
    func passkeyShapesCountEachIDLengthAndTransportListAndEachUsersPasskeys(backend: StoreBackend) async throws {
        let store = try await backend.make()
        #expect(try await store.passkeyShapes() == PasskeyShapes())
        let (alice, bob, carol) = (Fixtures.user("alice", handle: 1), Fixtures.user("bob", handle: 2), Fixtures.user("carol", handle: 3))
        try await store.registerNew(alice, with: Fixtures.credential(1, of: alice))
        try await store.register(NewRegistration(credential: Fixtures.detailedCredential(2, of: alice), newUser: nil))
        try await store.registerNew(bob, with: Fixtures.credential(Fixtures.bytes(3, count: 20), of: bob))
        try await store.createUser(carol)
        #expect(try await store.passkeyShapes() == PasskeyShapes(
            passkeys: [
                .init(idLength: 16, transports: [.internal, .hybrid]): 1,
                .init(idLength: 16, transports: [.usb, .nfc, .ble, .smartCard, .hybrid, .internal]): 1,
                .init(idLength: 20, transports: [.internal, .hybrid]): 1,
            ],
            usersByPasskeyCount: [2: 1, 1: 1]))
    }

    @Test(arguments: StoreBackend.all)
    func aUserIsUpdatedWithItsEventOrNotAtAll(backend: StoreBackend) async throws {
        let store = try await backend.make()
        var alice = Fixtures.user("alice", handle: 1)
        alice.externalId = "crm-1"
        var bob = Fixtures.user("bob", handle: 2)
        bob.externalId = "crm-2"
        try await store.registerNew(alice, with: Fixtures.credential(7, of: alice), session: Fixtures.session(1, of: alice))
        try await store.createUser(bob)

        var renamed = alice
        (renamed.username, renamed.displayName, renamed.externalId) = ("alicia", "Alicia Ünïcode", "crm-9")
        let updated = Self.event(.userUpdated, 1, user: renamed)
        #expect(try await store.updateUser(renamed, from: alice, recording: [updated]))
        #expect(try await store.user(named: "alicia") == renamed)
        #expect(try await store.user(externalId: "crm-9") == renamed)
        #expect(try await store.user(named: "alice") == nil)
        #expect(try await store.user(externalId: "crm-1") == nil)
        #expect(try await store.credentials(ofUser: alice.handle).count == 1, "the handle, so passkeys and sessions, stay")
        #expect(try await store.hasSession(Fixtures.bytes(1)))

        // Another user's username or external ID: refused, nothing written.
        var clash = renamed
        clash.username = "bob"
        let refused = Self.event(.userUpdated, 2, user: clash)
        await #expect { try await store.updateUser(clash, from: renamed, recording: [refused]) } throws: { ($0 as? StoreError)?.code == .usernameTaken }
        clash = renamed
        clash.externalId = "crm-2"
        await #expect { try await store.updateUser(clash, from: renamed, recording: [refused]) } throws: { ($0 as? StoreError)?.code == .externalIdTaken }
        // No such user: nothing written either.
        let nobody = Fixtures.user("carol", handle: 3)
        #expect(try await !store.updateUser(nobody, from: nobody, recording: [Self.event(.userUpdated, 3, user: nobody)]))
        // A change made from what the user was before another: nothing written, so neither undoes the other.
        var stale = alice
        stale.displayName = "From an old read"
        #expect(try await !store.updateUser(stale, from: alice, recording: [Self.event(.userUpdated, 4, user: stale)]))
        // Clearing the external ID.
        var cleared = renamed
        cleared.externalId = nil
        #expect(try await store.updateUser(cleared, from: renamed, recording: []))
        #expect(try await store.user(named: "alicia") == cleared)
        #expect(try await store.user(named: "bob") == bob)
        #expect(try await store.securityEvents(SecurityEventQuery(limit: 10)).map(\.id) == [updated.id])

        // Disabling is kept, and read back wherever the user is read: by name and handle, with a session, in the list,
        // as a passkey's owner at sign-in.
        var disabled = cleared
        disabled.disabled = true
        #expect(try await store.updateUser(disabled, from: cleared, recording: []))
        #expect(try await !store.updateUser(disabled, from: cleared, recording: []), "the stored user is no longer the one read")
        #expect(try await store.user(named: "alicia")?.disabled == true)
        #expect(try await store.user(handle: alice.handle)?.disabled == true)
        #expect(try await store.userWithCredentials(named: "alicia")?.user.disabled == true)
        #expect(try await store.session(tokenHash: Fixtures.bytes(1), now: Fixtures.now)?.user.disabled == true)
        #expect(try await store.users(after: nil, limit: 10).map(\.user.disabled) == [true, false])
        try await store.savePendingCeremony(Fixtures.signInCeremony(40))
        #expect(try await store.signInLookup(challengeHash: Fixtures.bytes(40), credentialID: Fixtures.credential(7, of: alice).id).owner?.disabled == true)
        #expect(try await store.updateUser(cleared, from: disabled, recording: []))
        #expect(try await store.user(named: "alicia") == cleared)
    }

    @Test(arguments: StoreBackend.all)
    func adminCanEndSessionsAndRemoveTheLastPasskey(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let bob = Fixtures.user("bob", handle: 2)
        let only = Fixtures.credential(7, of: alice)
        try await store.registerNew(alice, with: only, session: Fixtures.session(1, of: alice))
        try await store.registerNew(bob, with: Fixtures.credential(8, of: bob), session: Fixtures.session(2, of: bob))
        try await store.register(NewRegistration(credential: Fixtures.credential(9, of: alice), newUser: nil, session: Fixtures.session(3, of: alice)))

        #expect(try await store.deleteSessions(ofUser: alice.handle) == 2)
        #expect(try await !store.hasSession(Fixtures.bytes(1)))
        #expect(try await !store.hasSession(Fixtures.bytes(3)))
        #expect(try await store.hasSession(Fixtures.bytes(2)), "another user's session lives on")
        #expect(try await store.deleteSessions(ofUser: alice.handle) == 0)

        #expect(try await !store.deleteCredentialEvenIfLast(id: only.id, ownedBy: bob.handle), "only the owner's passkey")
        #expect(try await store.deleteCredentialEvenIfLast(id: only.id, ownedBy: alice.handle))
        #expect(try await store.deleteCredentialEvenIfLast(id: Fixtures.bytes(9, count: 16), ownedBy: alice.handle))
        #expect(try await store.credentials(ofUser: alice.handle).isEmpty, "the last passkey too")
        #expect(try await store.user(handle: alice.handle) == alice, "the user stays")
        #expect(try await !store.deleteCredentialEvenIfLast(id: only.id, ownedBy: alice.handle))
    }

    @Test(arguments: StoreBackend.all)
    func adminKeysAreFoundByHashAndRevoked(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let ci = AdminKeyRecord(name: "ci", keyHash: Fixtures.bytes(1), createdAt: Fixtures.now)
        let shop = AdminKeyRecord(name: "shop-backend", keyHash: Fixtures.bytes(2), createdAt: Fixtures.now.addingTimeInterval(10))
        try await store.saveAdminKey(ci)
        try await store.saveAdminKey(shop)
        #expect(try await store.adminKeys() == [ci, shop])
        let again = AdminKeyRecord(name: "ci", keyHash: Fixtures.bytes(3), createdAt: Fixtures.now)
        await #expect { try await store.saveAdminKey(again) } throws: { ($0 as? StoreError)?.code == .nameTaken }

        let later = Fixtures.now.addingTimeInterval(60)
        var used = shop
        used.lastUsedAt = later
        #expect(try await store.useAdminKey(hash: Fixtures.bytes(2), now: later) == used)
        #expect(try await store.adminKeys() == [ci, used], "the use is recorded")
        #expect(try await store.useAdminKey(hash: Fixtures.bytes(9), now: later) == nil)

        #expect(try await store.deleteAdminKey(named: "shop-backend"))
        #expect(try await !store.deleteAdminKey(named: "shop-backend"))
        #expect(try await store.useAdminKey(hash: Fixtures.bytes(2), now: later) == nil, "a revoked key is unknown")
        #expect(try await store.adminKeys() == [ci])
    }

    @Test(arguments: StoreBackend.all)
    func anEnrollmentTicketIsSpentOnceWithItsRegistration(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let bob = Fixtures.user("bob", handle: 2)
        try await store.createUser(alice)
        try await store.createUser(bob)
        let ticket = EnrollmentTicketRecord(
            hash: Fixtures.bytes(1), userHandle: alice.handle, createdAt: Fixtures.now, expiresAt: Fixtures.now.addingTimeInterval(600))
        try await store.saveEnrollmentTicket(ticket)
        #expect(try await store.enrollmentTicket(hash: ticket.hash) == ticket)
        let stranger = EnrollmentTicketRecord(
            hash: Fixtures.bytes(9), userHandle: Fixtures.bytes(9, count: 64), createdAt: Fixtures.now, expiresAt: Fixtures.now)
        await #expect { try await store.saveEnrollmentTicket(stranger) } throws: { ($0 as? StoreError)?.code == .userNotFound }

        let at = Fixtures.now.addingTimeInterval(30)
        func registration(_ id: UInt8, of user: UserRecord) -> NewRegistration {
            NewRegistration(
                credential: Fixtures.credential(id, of: user), newUser: nil, session: Fixtures.session(id, of: user),
                spendingTicket: (ticket.hash, at))
        }
        // Another user's registration cannot spend it, and writes nothing.
        await #expect { try await store.register(registration(8, of: bob)) } throws: { ($0 as? StoreError)?.code == .ticketNotUsable }
        #expect(try await store.credentials(ofUser: bob.handle).isEmpty)
        #expect(try await !store.hasSession(Fixtures.bytes(8)))

        try await store.register(registration(7, of: alice))
        var spent = ticket
        spent.usedAt = at
        #expect(try await store.enrollmentTicket(hash: ticket.hash) == spent)
        #expect(try await store.hasSession(Fixtures.bytes(7)))

        // A second use writes nothing.
        await #expect { try await store.register(registration(9, of: alice)) } throws: { ($0 as? StoreError)?.code == .ticketNotUsable }
        #expect(try await store.credentials(ofUser: alice.handle).map(\.id) == [Fixtures.bytes(7, count: 16)])
        #expect(try await !store.hasSession(Fixtures.bytes(9)))
    }

    @Test(arguments: StoreBackend.all)
    func revokedAndExpiredTicketsCannotBeSpent(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        try await store.createUser(alice)
        func ticket(_ tag: UInt8, expiresIn lifetime: TimeInterval) -> EnrollmentTicketRecord {
            EnrollmentTicketRecord(
                hash: Fixtures.bytes(tag), userHandle: alice.handle, createdAt: Fixtures.now,
                expiresAt: Fixtures.now.addingTimeInterval(lifetime))
        }
        let revoked = ticket(1, expiresIn: 600)
        let expired = ticket(2, expiresIn: 10)
        for record in [revoked, expired] { try await store.saveEnrollmentTicket(record) }

        #expect(try await store.revokeEnrollmentTickets(ofUser: alice.handle, now: Fixtures.now) == 2)
        #expect(try await store.enrollmentTicket(hash: revoked.hash)?.revokedAt == Fixtures.now)
        #expect(try await store.revokeEnrollmentTickets(ofUser: alice.handle, now: Fixtures.now) == 0, "revoked once")
        let fresh = ticket(3, expiresIn: 10)
        try await store.saveEnrollmentTicket(fresh)

        for (record, at) in [(revoked, Fixtures.now), (fresh, Fixtures.now.addingTimeInterval(10))] {
            let registration = NewRegistration(credential: Fixtures.credential(7, of: alice), newUser: nil, spendingTicket: (record.hash, at))
            await #expect { try await store.register(registration) } throws: { ($0 as? StoreError)?.code == .ticketNotUsable }
        }
        #expect(try await store.credentials(ofUser: alice.handle).isEmpty)

        // Kept a day past expiry, then purged; deleting the user removes the rest.
        try await store.purgeExpired(now: Fixtures.now.addingTimeInterval(86_400))
        #expect(try await store.enrollmentTicket(hash: fresh.hash) != nil)
        try await store.purgeExpired(now: Fixtures.now.addingTimeInterval(86_411))
        #expect(try await store.enrollmentTicket(hash: fresh.hash) == nil)
        #expect(try await store.enrollmentTicket(hash: revoked.hash) != nil)
        _ = try await store.deleteUser(handle: alice.handle)
        #expect(try await store.enrollmentTicket(hash: revoked.hash) == nil)
    }

    @Test(arguments: StoreBackend.all)
    func signingKeyGenerationsAreUnique(backend: StoreBackend) async throws {
        let store = try await backend.make()
        #expect(try await store.signingKeys().isEmpty)
        let first = SigningKeyRecord(generation: 1, keyID: "k1", privateKey: Array("PEM one".utf8), createdAt: Fixtures.now)
        let second = SigningKeyRecord(
            generation: 2, keyID: "k2", privateKey: Array("PEM two".utf8), createdAt: Fixtures.now.addingTimeInterval(5),
            signsFrom: Fixtures.now.addingTimeInterval(305))
        #expect(try await store.addSigningKey(second))
        #expect(try await store.addSigningKey(first))
        let racing = SigningKeyRecord(generation: 2, keyID: "k3", privateKey: [1], createdAt: Fixtures.now)
        #expect(try await !store.addSigningKey(racing), "a generation is added once")
        #expect(try await store.signingKeys() == [first, second])
    }
}

extension StoreContractTests {
    @Test(arguments: StoreBackend.all)
    func deviceKeysAreKeptPerUserAndSignInOnlyWhileEnrolled(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let bob = Fixtures.user("bob", handle: 2)
        try await store.createUser(alice)
        try await store.createUser(bob)
        let phone = Fixtures.deviceKey(1, of: alice, name: "iPhone 🔑")
        let pad = Fixtures.deviceKey(2, of: alice, createdAt: 1, appAttestKeyID: Fixtures.bytes(5))
        try await store.saveDeviceKey(phone, spendingTicket: nil)
        try await store.saveDeviceKey(pad, spendingTicket: nil)
        await #expect { try await store.saveDeviceKey(phone, spendingTicket: nil) } throws: {
            ($0 as? StoreError)?.code == .credentialAlreadyRegistered
        }
        var stranger = phone
        stranger.id = Fixtures.bytes(3)
        stranger.userHandle = Fixtures.bytes(9, count: 64)
        await #expect { try await store.saveDeviceKey(stranger, spendingTicket: nil) } throws: { ($0 as? StoreError)?.code == .userNotFound }
        #expect(try await store.deviceKey(id: phone.id) == phone)
        #expect(try await store.deviceKeys(ofUser: alice.handle) == [phone, pad])
        #expect(try await store.deviceKeys(ofUser: bob.handle).isEmpty)

        let at = Fixtures.now.addingTimeInterval(60)
        #expect(try await store.recordDeviceKeySignIn(id: phone.id, at: at, session: Fixtures.session(1, of: alice)))
        #expect(try await store.deviceKey(id: phone.id)?.lastUsedAt == at)
        #expect(try await store.hasSession(Fixtures.bytes(1)))
        #expect(try await !store.recordDeviceKeySignIn(id: phone.id, at: at, session: Fixtures.session(2, of: bob)), "not bob's key")
        #expect(try await !store.hasSession(Fixtures.bytes(2)))
        // A new sign-in ends the session the request carried.
        #expect(try await store.recordDeviceKeySignIn(id: phone.id, at: at, session: Fixtures.session(4, of: alice), endingSessions: [Fixtures.bytes(1)]))
        #expect(try await !store.hasSession(Fixtures.bytes(1)))
        #expect(try await store.hasSession(Fixtures.bytes(4)))

        #expect(try await store.renameDeviceKey(id: phone.id, ownedBy: bob.handle, name: "taken") == nil, "not bob's key")
        var renamed = try #require(try await store.deviceKey(id: phone.id))
        renamed.name = "Work phone"
        #expect(try await store.renameDeviceKey(id: phone.id, ownedBy: alice.handle, name: "Work phone") == renamed)
        renamed.name = nil
        #expect(try await store.renameDeviceKey(id: phone.id, ownedBy: alice.handle, name: nil) == renamed)
        // Removing a key ends the sessions it signed in, and only those.
        #expect(try await store.recordDeviceKeySignIn(id: pad.id, at: at, session: Fixtures.session(5, of: alice)))
        #expect(try await !store.deleteDeviceKey(id: phone.id, ownedBy: bob.handle))
        #expect(try await store.hasSession(Fixtures.bytes(4)), "bob cannot end alice's sessions")
        #expect(try await store.deleteDeviceKey(id: phone.id, ownedBy: alice.handle))
        #expect(try await !store.hasSession(Fixtures.bytes(4)), "the phone's session ends with its key")
        #expect(try await store.hasSession(Fixtures.bytes(5)), "another key's session stays")
        #expect(try await !store.recordDeviceKeySignIn(id: phone.id, at: at, session: Fixtures.session(3, of: alice)), "a removed key")
        #expect(try await !store.hasSession(Fixtures.bytes(3)))
        _ = try await store.deleteUser(handle: alice.handle)
        #expect(try await store.deviceKey(id: pad.id) == nil, "an account's keys go with it")
    }
}

extension StoreContractTests {
    @Test(arguments: StoreBackend.all)
    func aDeviceKeyEnrolledWithATicketSpendsItOnce(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let bob = Fixtures.user("bob", handle: 2)
        try await store.createUser(alice)
        try await store.createUser(bob)
        let ticket = EnrollmentTicketRecord(
            hash: Fixtures.bytes(1), userHandle: alice.handle, createdAt: Fixtures.now, expiresAt: Fixtures.now.addingTimeInterval(600))
        try await store.saveEnrollmentTicket(ticket)
        let at = Fixtures.now.addingTimeInterval(10)
        await #expect { try await store.saveDeviceKey(Fixtures.deviceKey(3, of: bob), spendingTicket: (ticket.hash, at)) } throws: {
            ($0 as? StoreError)?.code == .ticketNotUsable
        }
        #expect(try await store.deviceKey(id: Fixtures.bytes(3)) == nil, "another user's ticket writes nothing")
        try await store.saveDeviceKey(Fixtures.deviceKey(4, of: alice), spendingTicket: (ticket.hash, at))
        #expect(try await store.enrollmentTicket(hash: ticket.hash)?.usedAt == at)
        await #expect { try await store.saveDeviceKey(Fixtures.deviceKey(5, of: alice), spendingTicket: (ticket.hash, at)) } throws: {
            ($0 as? StoreError)?.code == .ticketNotUsable
        }
        #expect(try await store.deviceKeys(ofUser: alice.handle).map(\.id) == [Fixtures.bytes(4)], "a spent ticket enrolls no second key")
    }

    @Test(arguments: StoreBackend.all)
    func anAppAttestKeysCountersChangeOnlyFromWhatWasReadAndOneOfTwoRacersWins(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let key = AppAttestKeyRecord(
            keyID: Fixtures.bytes(1), publicKey: [4] + Fixtures.bytes(2, count: 64), appID: "ABCDE12345.com.example.app",
            environment: "development", receipt: Fixtures.bytes(3, count: 900), createdAt: Fixtures.now)
        try await store.saveAppAttestKey(key)
        await #expect { try await store.saveAppAttestKey(key) } throws: { ($0 as? StoreError)?.code == .credentialAlreadyRegistered }
        #expect(try await store.appAttestKey(id: key.keyID) == key)
        #expect(key.acceptedCounters == 1)
        #expect(try await store.appAttestKey(id: Fixtures.bytes(9)) == nil)

        let at = Fixtures.now.addingTimeInterval(5)
        let racers = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 { group.addTask { try await store.updateAppAttestCounters(id: key.keyID, from: (0, 1), to: (1, 3), at: at) } }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(racers.filter { $0 }.count == 1, "eight assertions that read the same counters: one wins")
        #expect(try await !store.updateAppAttestCounters(id: key.keyID, from: (0, 1), to: (2, 5), at: at), "counters read before the win")
        // Every bit of the window is kept, the top one (a negative 64-bit integer in the database) too.
        let window = UInt64.max - 4
        #expect(try await store.updateAppAttestCounters(id: key.keyID, from: (1, 3), to: (UInt32.max, window), at: at))
        #expect(try await !store.updateAppAttestCounters(id: Fixtures.bytes(9), from: (0, 1), to: (8, 1), at: at), "an unknown key")
        let stored = try await store.appAttestKey(id: key.keyID)
        #expect(stored?.counter == UInt32.max)
        #expect(stored?.acceptedCounters == window)
        #expect(stored?.lastUsedAt == at)
    }
}
