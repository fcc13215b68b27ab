import Foundation
import LatchkeyStore
import Testing

/// The contract for the audit log and the webhook outbox: events are written with their change
/// and only with it, pages are newest first and stable, and deliveries are leased one sender at a
/// time, in order per user, and kept until delivered or dead.
extension StoreContractTests {
    static let receivers = ["https://a.example/hooks", "https://b.example/hooks"]

    static func event(_ type: SecurityEventType, _ tag: Int, user: UserRecord?, at offset: TimeInterval = 0) -> SecurityEvent {
        SecurityEvent(
            id: "evt_\(type.rawValue)_\(tag)", type: type, occurredAt: Fixtures.now.addingTimeInterval(offset),
            userHandle: user?.handle, username: user?.username, credentialID: Fixtures.bytes(UInt8(tag % 200)),
            aaguid: Fixtures.bytes(9, count: 16), authenticatorName: "iCloud Keychain", clientAddress: "203.0.113.7",
            userAgent: "Safari", requestID: "req-\(tag)", actor: .user, detail: "tag \(tag)")
    }

    @Test(arguments: StoreBackend.all)
    func eventsAreWrittenWithTheirChangeAndOnlyWithIt(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let created = Self.event(.userCreated, 1, user: alice)
        let registered = Self.event(.passkeyRegistered, 2, user: alice)
        let passkey = Fixtures.credential(1, of: alice)
        try await store.register(NewRegistration(credential: passkey, newUser: alice, events: [created, registered]))

        // A refused change writes no event: the username is taken.
        let clash = Self.event(.userCreated, 3, user: alice)
        await #expect(throws: StoreError.self) {
            try await store.createUser(Fixtures.user("alice", handle: 2), recording: [clash])
        }
        // A change that changes nothing writes none either.
        let unknownRemoval = Self.event(.passkeyRemoved, 4, user: alice)
        #expect(try await store.deleteCredential(id: Fixtures.bytes(99), ownedBy: alice.handle, recording: [unknownRemoval]) == .notFound)
        let lastRemoval = Self.event(.passkeyRemoved, 5, user: alice)
        #expect(try await store.deleteCredential(id: passkey.id, ownedBy: alice.handle, recording: [lastRemoval]) == .lastCredential)
        let noSession = Self.event(.sessionEnded, 6, user: alice)
        try await store.deleteSessions(tokenHashes: [Fixtures.bytes(77)], recording: [noSession])
        let renamed = Self.event(.passkeyRenamed, 7, user: alice)
        #expect(try await store.renameCredential(id: passkey.id, ownedBy: alice.handle, name: "Laptop", recording: [renamed]) != nil)

        let events = try await store.securityEvents(SecurityEventQuery(limit: 50))
        #expect(events.map(\.id) == [renamed.id, registered.id, created.id], "newest first; none for the refused or empty changes")
        var stored = try #require(events.last)
        #expect(stored.sequence > 0)
        stored.sequence = 0
        #expect(stored == created, "every field round-trips")
        for id in [clash.id, unknownRemoval.id, lastRemoval.id, noSession.id] {
            #expect(try await store.securityEvent(id: id) == nil)
        }
    }

    @Test(arguments: StoreBackend.all)
    func aDeviceKeyRenameIsWrittenWithItsEventAndOnlyWithIt(backend: StoreBackend) async throws {
        let store = try await backend.makeWithOutbox(WebhookOutbox(receivers: Self.receivers))
        let alice = Fixtures.user("alice", handle: 1)
        let bob = Fixtures.user("bob", handle: 2)
        try await store.createUser(alice)
        try await store.createUser(bob)
        let phone = Fixtures.deviceKey(1, of: alice, name: "iPhone")
        try await store.saveDeviceKey(phone, spendingTicket: nil)

        // Another user's key, or none at all: nothing renamed, nothing recorded.
        let notBobs = Self.event(.deviceKeyRenamed, 1, user: bob)
        #expect(try await store.renameDeviceKey(id: phone.id, ownedBy: bob.handle, name: "Taken", recording: [notBobs]) == nil)
        let unknown = Self.event(.deviceKeyRenamed, 2, user: alice)
        #expect(try await store.renameDeviceKey(id: Fixtures.bytes(99), ownedBy: alice.handle, name: "Gone", recording: [unknown]) == nil)
        let renamed = Self.event(.deviceKeyRenamed, 3, user: alice)
        #expect(try await store.renameDeviceKey(id: phone.id, ownedBy: alice.handle, name: "Work phone", recording: [renamed])?.name == "Work phone")

        let events = try await store.securityEvents(SecurityEventQuery(limit: 10))
        #expect(events.map(\.id) == [renamed.id])
        #expect(events.first?.type == .deviceKeyRenamed && events.first?.detail == "tag 3")
        for id in [notBobs.id, unknown.id] {
            #expect(try await store.securityEvent(id: id) == nil)
        }
        #expect(try await store.webhookOutboxStatus().depth == 2, "one delivery per receiver, for the rename only")
    }

    @Test(arguments: StoreBackend.all)
    func aTicketRevocationIsWrittenWithItsEventOnlyWhenItRevokesAny(backend: StoreBackend) async throws {
        let store = try await backend.makeWithOutbox(WebhookOutbox(receivers: Self.receivers))
        let alice = Fixtures.user("alice", handle: 1)
        let bob = Fixtures.user("bob", handle: 2)
        try await store.createUser(alice)
        try await store.createUser(bob)
        /// The events of a revocation of alice's tickets, tagged, with how many it revoked as their detail.
        func revocation(_ tag: Int) -> @Sendable (Int) -> [SecurityEvent] {
            { revoked in
                var event = Self.event(.enrollmentTicketRevoked, tag, user: alice)
                event.actor = .admin("backend")
                event.detail = "\(revoked) revoked"
                return [event]
            }
        }

        // Nothing to revoke: nothing recorded.
        #expect(try await store.revokeEnrollmentTickets(ofUser: alice.handle, now: Fixtures.now, recording: revocation(1)) == 0)
        for (tag, owner, lifetime) in [(1, alice, 600.0), (2, alice, 600), (3, alice, 10), (4, bob, 600)] as [(UInt8, UserRecord, TimeInterval)] {
            try await store.saveEnrollmentTicket(EnrollmentTicketRecord(
                hash: Fixtures.bytes(tag), userHandle: owner.handle, createdAt: Fixtures.now,
                expiresAt: Fixtures.now.addingTimeInterval(lifetime)))
        }
        let later = Fixtures.now.addingTimeInterval(60)
        #expect(try await store.revokeEnrollmentTickets(ofUser: alice.handle, now: later, recording: revocation(2)) == 2, "not the expired one")
        #expect(try await store.revokeEnrollmentTickets(ofUser: alice.handle, now: later, recording: revocation(3)) == 0, "revoked once")

        let events = try await store.securityEvents(SecurityEventQuery(limit: 10))
        #expect(events.map(\.id) == ["evt_enrollment_ticket.revoked_2"])
        let stored = try #require(events.first)
        #expect(stored.detail == "2 revoked" && stored.actor == .admin("backend") && stored.userHandle == alice.handle)
        #expect(try await store.webhookOutboxStatus().depth == 2, "one delivery per receiver, for the revocation that revoked")
        #expect(try await store.enrollmentTicket(hash: Fixtures.bytes(4))?.revokedAt == nil, "bob's ticket is his")
    }

    @Test(arguments: StoreBackend.all)
    func aSignInAndItsEventAreWrittenTogether(backend: StoreBackend) async throws {
        let store = try await backend.makeWithOutbox(WebhookOutbox(receivers: Self.receivers))
        let alice = Fixtures.user("alice", handle: 1)
        let passkey = Fixtures.credential(1, of: alice, signCount: 3)
        try await store.registerNew(alice, with: passkey)
        var signIn = Fixtures.signIn(passkey, from: 3, to: 4, session: Fixtures.session(1, of: alice))
        var event = Self.event(.signInSucceeded, 1, user: alice, at: 5)
        event.credentialID = passkey.id
        signIn.events = [event]
        #expect(try await store.recordAnswered(signIn) == .recorded)
        // The same counter again: the sign-in is refused, and its event is not written.
        var stale = Fixtures.signIn(passkey, from: 3, to: 5, session: Fixtures.session(2, of: alice))
        stale.events = [Self.event(.signInSucceeded, 2, user: alice, at: 5)]
        #expect(try await store.recordAnswered(stale) == .counterMoved)

        let events = try await store.securityEvents(SecurityEventQuery(limit: 10))
        #expect(events.map(\.id) == ["evt_sign_in.succeeded_1"])
        let stored = try #require(events.first)
        #expect(stored.occurredAt == signIn.at && stored.credentialID == passkey.id && stored.userHandle == alice.handle)
        #expect(stored.username == "alice" && stored.authenticatorName == "iCloud Keychain" && stored.detail == "tag 1")
        #expect(try await store.webhookOutboxStatus().depth == 2, "one delivery per receiver")
    }

    @Test(arguments: StoreBackend.all)
    func eventPagesFilterAndPageNewestFirst(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let bob = Fixtures.user("bob", handle: 2)
        var written: [SecurityEvent] = []
        for index in 0..<7 {
            let event = Self.event(index % 2 == 0 ? .signInSucceeded : .signInRefused, index, user: index < 5 ? alice : bob, at: Double(index))
            try await store.recordEvent(event)
            written.append(event)
        }
        let first = try await store.securityEvents(SecurityEventQuery(userHandle: alice.handle, limit: 2))
        #expect(first.map(\.id) == [written[4].id, written[3].id])
        let second = try await store.securityEvents(SecurityEventQuery(userHandle: alice.handle, before: first.last?.sequence, limit: 2))
        #expect(second.map(\.id) == [written[2].id, written[1].id])
        let refused = try await store.securityEvents(SecurityEventQuery(types: [.signInRefused], limit: 10))
        #expect(refused.map(\.id) == [written[5].id, written[3].id, written[1].id])
        let recent = try await store.securityEvents(SecurityEventQuery(since: Fixtures.now.addingTimeInterval(5), limit: 10))
        #expect(recent.map(\.id) == [written[6].id, written[5].id])
    }

    @Test(arguments: StoreBackend.all)
    func eachEventGetsOneDeliveryPerReceiverLeasedToOneSenderAtATime(backend: StoreBackend) async throws {
        let store = try await backend.makeWithOutbox(WebhookOutbox(receivers: Self.receivers))
        let alice = Fixtures.user("alice", handle: 1)
        try await store.createUser(alice, recording: [Self.event(.userCreated, 1, user: alice)])
        #expect(try await store.webhookOutboxStatus() == WebhookOutboxStatus(depth: 2, oldestPendingAt: Fixtures.now))

        let now = Fixtures.now.addingTimeInterval(1)
        let claimed = try await store.claimWebhookDeliveries(owner: "one", now: now, leaseUntil: now.addingTimeInterval(30), limit: 10, receivers: .all)
        #expect(Set(claimed.map(\.delivery.receiver)) == Set(Self.receivers))
        #expect(claimed.allSatisfy { $0.event.id == "evt_user.created_1" && $0.delivery.retryUntil == Fixtures.now.addingTimeInterval(86_400) })
        // Leased: nobody else gets them until the lease runs out.
        #expect(try await store.claimWebhookDeliveries(owner: "two", now: now, leaseUntil: now.addingTimeInterval(30), limit: 10, receivers: .all).isEmpty)
        let later = now.addingTimeInterval(31)
        let takenOver = try await store.claimWebhookDeliveries(owner: "two", now: later, leaseUntil: later.addingTimeInterval(30), limit: 10, receivers: .all)
        #expect(takenOver.count == 2, "a dead sender's lease runs out")
        // The first owner lost its lease: its outcome is not recorded.
        let first = try #require(claimed.first)
        #expect(try await !store.finishWebhookDelivery(id: first.delivery.id, owner: "one", outcome: .delivered, now: later))
        for (delivery, _) in takenOver {
            #expect(try await store.finishWebhookDelivery(id: delivery.id, owner: "two", outcome: .delivered, now: later))
        }
        #expect(try await store.webhookOutboxStatus().depth == 0)
        let delivered = try await store.webhookDeliveries(state: .delivered, before: nil, limit: 10)
        #expect(delivered.count == 2 && delivered.allSatisfy { $0.attempts == 1 && $0.deliveredAt == later })
    }

    /// A store with both ``receivers`` whose outbox holds alice's creation and a sign-in of hers for each.
    static func twoEventsOfAlice(toEachReceiverOn backend: StoreBackend) async throws -> any LatchkeyStore {
        let store = try await backend.makeWithOutbox(WebhookOutbox(receivers: receivers))
        let alice = Fixtures.user("alice", handle: 1)
        try await store.createUser(alice, recording: [event(.userCreated, 1, user: alice)])
        try await store.recordEvent(event(.signInSucceeded, 2, user: alice, at: 2))
        return store
    }

    /// One sender per receiver: a claim takes one receiver's deliveries, or every receiver's but some.
    @Test(arguments: StoreBackend.all)
    func aClaimTakesTheDeliveriesOfTheReceiversItNames(backend: StoreBackend) async throws {
        let store = try await Self.twoEventsOfAlice(toEachReceiverOn: backend)
        let now = Fixtures.now.addingTimeInterval(10)
        func claim(_ receivers: WebhookReceiverSelection) async throws -> [String] {
            try await store.claimWebhookDeliveries(owner: "one", now: now, leaseUntil: now.addingTimeInterval(30), limit: 10, receivers: receivers)
                .map(\.delivery.receiver)
        }
        #expect(try await claim(.allBut(Set(Self.receivers))) == [])
        #expect(try await claim(.only(Self.receivers[1])) == [Self.receivers[1]], "the oldest of alice's, to this receiver only")
        #expect(try await claim(.allBut([Self.receivers[1]])) == [Self.receivers[0]])
        #expect(try await claim(.all) == [], "both heads are leased")
    }

    /// A receiver's pending deliveries, stored under its URL by an older version, move to its name; its done ones
    /// and another receiver's are not touched.
    @Test(arguments: StoreBackend.all)
    func aReceiversPendingDeliveriesMoveToItsNewName(backend: StoreBackend) async throws {
        let store = try await Self.twoEventsOfAlice(toEachReceiverOn: backend)
        let now = Fixtures.now.addingTimeInterval(10)
        let first = try #require(try await store.claimWebhookDeliveries(
            owner: "one", now: now, leaseUntil: now.addingTimeInterval(30), limit: 10, receivers: .only(Self.receivers[0])).first)
        #expect(try await store.finishWebhookDelivery(id: first.delivery.id, owner: "one", outcome: .dead(error: "HTTP 500"), now: now))

        let renamed = "https://hooks.example/renamed"
        #expect(try await store.renameWebhookReceiver(Self.receivers[0], to: renamed) == 1)
        #expect(try await store.renameWebhookReceiver("https://nobody.example/", to: renamed) == 0)
        let deliveries = try await store.webhookDeliveries(state: nil, before: nil, limit: 10)
        #expect(deliveries.map(\.receiver).sorted() == [Self.receivers[0], Self.receivers[1], Self.receivers[1], renamed].sorted())
        #expect(deliveries.first { $0.receiver == Self.receivers[0] }?.state == .dead)
        let claimed = try await store.claimWebhookDeliveries(
            owner: "one", now: now, leaseUntil: now.addingTimeInterval(30), limit: 10, receivers: .only(renamed))
        #expect(claimed.map(\.event.id) == ["evt_sign_in.succeeded_2"], "the pending one, under its new name")
    }

    @Test(arguments: StoreBackend.all)
    func oneUsersDeliveriesGoInOrderAndDeadOnesCanBeRetried(backend: StoreBackend) async throws {
        let store = try await backend.makeWithOutbox(WebhookOutbox(receivers: [Self.receivers[0]]))
        let alice = Fixtures.user("alice", handle: 1)
        let bob = Fixtures.user("bob", handle: 2)
        for (index, user) in [alice, alice, bob, alice].enumerated() {
            try await store.recordEvent(Self.event(.signInSucceeded, index, user: user, at: Double(index)))
        }
        let now = Fixtures.now.addingTimeInterval(10)
        func claim(_ owner: String, at time: Date) async throws -> [String] {
            try await store.claimWebhookDeliveries(owner: owner, now: time, leaseUntil: time.addingTimeInterval(30), limit: 10, receivers: .all).map(\.event.id)
        }
        // Only the oldest of each user's pending deliveries is due.
        #expect(try await claim("one", at: now) == ["evt_sign_in.succeeded_0", "evt_sign_in.succeeded_2"])
        let leased = try await store.webhookDeliveries(state: .pending, before: nil, limit: 10)
        let alicesFirst = try #require(leased.last)
        let bobs = try #require(leased.first { $0.eventID == "evt_sign_in.succeeded_2" })
        #expect(try await store.finishWebhookDelivery(id: bobs.id, owner: "one", outcome: .delivered, now: now))
        // A failure schedules a retry; alice's later events wait behind it.
        #expect(try await store.finishWebhookDelivery(
            id: alicesFirst.id, owner: "one", outcome: .retry(at: now.addingTimeInterval(60), error: "HTTP 503"), now: now))
        #expect(try await claim("two", at: now.addingTimeInterval(1)) == [])
        // Dead: alice's next one goes.
        #expect(try await claim("two", at: now.addingTimeInterval(61)) == ["evt_sign_in.succeeded_0"])
        #expect(try await store.finishWebhookDelivery(
            id: alicesFirst.id, owner: "two", outcome: .dead(error: "HTTP 503"), now: now.addingTimeInterval(61)))
        #expect(try await claim("two", at: now.addingTimeInterval(62)) == ["evt_sign_in.succeeded_1"])
        let dead = try #require(try await store.webhookDeliveries(state: .dead, before: nil, limit: 10).first)
        #expect(dead.id == alicesFirst.id && dead.attempts == 2 && dead.lastError == "HTTP 503")

        let retried = try #require(try await store.retryWebhookDelivery(id: dead.id, now: now.addingTimeInterval(70), retryUntil: now.addingTimeInterval(99_999)))
        #expect(retried.state == .pending && retried.nextAttemptAt == now.addingTimeInterval(70))
        #expect(try await store.retryWebhookDelivery(id: 987_654, now: now, retryUntil: now) == nil)

        // One waiting for its next attempt is due at once, with a new window; one a sender holds is left to it.
        let waiting = try #require(try await store.webhookDeliveries(state: .pending, before: nil, limit: 10).first { $0.eventID == "evt_sign_in.succeeded_1" })
        #expect(try await store.finishWebhookDelivery(
            id: waiting.id, owner: "two", outcome: .retry(at: now.addingTimeInterval(600), error: "HTTP 500"), now: now.addingTimeInterval(62)))
        let hurried = try #require(try await store.retryWebhookDelivery(id: waiting.id, now: now.addingTimeInterval(63), retryUntil: now.addingTimeInterval(99_999)))
        #expect(hurried.nextAttemptAt == now.addingTimeInterval(63) && hurried.retryUntil == now.addingTimeInterval(99_999))
        #expect(try await claim("three", at: now.addingTimeInterval(71)) == ["evt_sign_in.succeeded_0"], "the retried dead one, alice's oldest")
        let held = try #require(try await store.webhookDeliveries(state: .pending, before: nil, limit: 10).first { $0.eventID == "evt_sign_in.succeeded_0" })
        let untouched = try #require(try await store.retryWebhookDelivery(id: held.id, now: now.addingTimeInterval(72), retryUntil: now.addingTimeInterval(5)))
        #expect(untouched.retryUntil == held.retryUntil, "an attempt in flight is not disturbed")
    }

    @Test(arguments: StoreBackend.all)
    func retentionPurgesOldEventsAndDoneDeliveries(backend: StoreBackend) async throws {
        let store = try await backend.makeWithOutbox(WebhookOutbox(receivers: [Self.receivers[0]]))
        let alice = Fixtures.user("alice", handle: 1)
        try await store.recordEvent(Self.event(.signInSucceeded, 1, user: alice, at: -400 * 86_400))
        try await store.recordEvent(Self.event(.signInSucceeded, 2, user: alice, at: 0))
        try await store.purgeSecurityEvents(eventsBefore: Fixtures.now.addingTimeInterval(-365 * 86_400), deliveriesBefore: Fixtures.now)
        #expect(try await store.securityEvents(SecurityEventQuery(limit: 10)).map(\.id) == ["evt_sign_in.succeeded_2"])
        #expect(try await store.webhookOutboxStatus().depth == 1, "the old event's delivery went with it; the pending one stays")
    }
}

extension StoreContractTests {
    /// A refused sign-in recorded after its account was deleted (a deletion racing a sign-in) is not written: no event
    /// of a user follows their `account.deleted`, nor is one sent.
    @Test(arguments: StoreBackend.all)
    func anEventWhileItsUserExistsIsNotWrittenForADeletedUser(backend: StoreBackend) async throws {
        let store = try await backend.makeWithOutbox(WebhookOutbox(receivers: Self.receivers))
        let alice = Fixtures.user("alice", handle: 1)
        try await store.createUser(alice, recording: [Self.event(.userCreated, 1, user: alice)])
        #expect(try await store.recordEvent(Self.event(.signInRefused, 2, user: alice, at: 2), whileItsUserExists: true))
        #expect(try await store.deleteUser(handle: alice.handle, recording: [Self.event(.accountDeleted, 3, user: alice, at: 3)]) != nil)
        #expect(try await !store.recordEvent(Self.event(.signInRefused, 4, user: alice, at: 4), whileItsUserExists: true))
        let events = try await store.securityEvents(SecurityEventQuery(userHandle: alice.handle))
        #expect(events.map(\.type) == [.accountDeleted, .signInRefused, .userCreated])
        #expect(try await store.securityEvent(id: Self.event(.signInRefused, 4, user: alice).id) == nil)
    }
}
