import Foundation
import LatchkeyStore
import ServiceLifecycleTestKit
import Testing

/// The contract for sessions, the purge of expired rows and the store's life as a service.
extension StoreContractTests {
    // MARK: Sessions

    @Test(arguments: StoreBackend.all)
    func sessionsExpire(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let session = Fixtures.session(1, of: alice, expiresIn: 60)
        try await store.registerNew(alice, with: Fixtures.credential(7, of: alice), session: session)
        let live = SessionWithUser(session: session, user: alice)
        #expect(try await store.session(tokenHash: session.tokenHash, now: Fixtures.now) == live)
        #expect(try await store.session(tokenHash: session.tokenHash, now: Fixtures.now.addingTimeInterval(59)) == live)
        #expect(try await store.session(tokenHash: session.tokenHash, now: session.expiresAt) == nil, "expired at its expiry")
        #expect(try await store.session(tokenHash: session.tokenHash, now: Fixtures.now.addingTimeInterval(61)) == nil)
        #expect(try await store.session(tokenHash: Fixtures.bytes(2), now: Fixtures.now) == nil)
    }

    @Test(arguments: StoreBackend.all)
    func deleteSessionsEndsOnlyThoseListed(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        try await store.registerNew(alice, with: Fixtures.credential(7, of: alice), session: Fixtures.session(1, of: alice))
        for token: UInt8 in 2...4 {
            try await store.register(NewRegistration(
                credential: Fixtures.credential(7 + token, of: alice), newUser: nil, session: Fixtures.session(token, of: alice)))
        }
        try await store.deleteSessions(tokenHashes: [Fixtures.bytes(1), Fixtures.bytes(3), Fixtures.bytes(99)])
        try await store.deleteSessions(tokenHashes: [])
        #expect(try await store.hasSession(Fixtures.bytes(1)) == false)
        #expect(try await store.hasSession(Fixtures.bytes(3)) == false)
        #expect(try await store.hasSession(Fixtures.bytes(2)))
        #expect(try await store.hasSession(Fixtures.bytes(4)))
    }

    // MARK: Purge

    @Test(arguments: StoreBackend.all)
    func purgeRemovesOnlyExpiredRows(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let credential = Fixtures.credential(7, of: alice)
        let liveSession = Fixtures.session(Fixtures.bytes(index: 0xFFFF), of: alice)
        try await store.registerNew(alice, with: credential, session: liveSession)
        // More expired rows of each kind than any reasonable batch.
        let expiredCount = 1_100
        let expiredLifetime: TimeInterval = -1
        for index in 0..<expiredCount {
            try await store.savePendingCeremony(Fixtures.signInCeremony(Fixtures.bytes(index: index), expiresIn: expiredLifetime))
            let session = Fixtures.session(Fixtures.bytes(index: index), of: alice, expiresIn: expiredLifetime)
            let signIn = Fixtures.signIn(credential, from: UInt32(index), to: UInt32(index + 1), session: session)
            #expect(try await store.recordAnswered(signIn) == .recorded)
        }
        let atTheBoundary = Fixtures.signInCeremony(Fixtures.bytes(index: 0xFFFE), expiresIn: 0)
        let liveCeremony = Fixtures.signInCeremony(Fixtures.bytes(index: 0xFFFF), expiresIn: 1)
        try await store.savePendingCeremony(atTheBoundary)
        try await store.savePendingCeremony(liveCeremony)

        try await store.purgeExpired(now: Fixtures.now)

        let longAgo = Fixtures.now.addingTimeInterval(-3_600)
        var survivors = 0
        for index in 0..<expiredCount {
            if try await store.session(tokenHash: Fixtures.bytes(index: index), now: longAgo) != nil { survivors += 1 }
            if try await store.takePendingCeremony(challengeHash: Fixtures.bytes(index: index)) != nil { survivors += 1 }
        }
        #expect(survivors == 0, "every expired row must be purged")
        #expect(try await store.takePendingCeremony(challengeHash: atTheBoundary.challengeHash) == nil)
        #expect(try await store.takePendingCeremony(challengeHash: liveCeremony.challengeHash) == liveCeremony)
        #expect(try await store.hasSession(liveSession.tokenHash))
        #expect(try await store.credentials(ofUser: alice.handle) != [], "users and credentials never expire")
    }

    // MARK: Service

    @Test(arguments: StoreBackend.all)
    func gracefulShutdownClosesTheStore(backend: StoreBackend) async throws {
        let store = try await backend.make()
        try await testGracefulShutdown { trigger in
            async let running: Void = store.run()
            try await store.savePendingCeremony(Fixtures.signInCeremony(1))
            trigger.triggerGracefulShutdown()
            try await running
        }
        let error = await #expect(throws: StoreError.self) { try await store.user(named: "alice") }
        #expect(error?.code == .unavailable)
        #expect(error?.message == "the store is closed")
        let takeError = await #expect(throws: StoreError.self) {
            try await store.takePendingCeremony(challengeHash: Fixtures.bytes(1))
        }
        #expect(takeError?.code == .unavailable)
    }

    @Test(arguments: StoreBackend.all)
    func aUsersLiveSessionsAreListedNewestFirst(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1), bob = Fixtures.user("bob", handle: 2)
        try await store.registerNew(alice, with: Fixtures.credential(1, of: alice), session: Fixtures.session(1, of: alice))
        try await store.registerNew(bob, with: Fixtures.credential(2, of: bob), session: Fixtures.session(2, of: bob))
        var newer = Fixtures.session(3, of: alice)
        newer.createdAt = Fixtures.now.addingTimeInterval(60)
        _ = try await store.recordAnswered(Fixtures.signIn(Fixtures.credential(1, of: alice), from: 0, to: 1, session: newer))
        try await store.registerNew(Fixtures.user("carol", handle: 3), with: Fixtures.credential(3, of: Fixtures.user("carol", handle: 3)))
        _ = try await store.recordAnswered(Fixtures.signIn(
            Fixtures.credential(1, of: alice), from: 1, to: 2, session: Fixtures.session(4, of: alice, expiresIn: -1)))
        let listed = try await store.sessions(ofUser: alice.handle, now: Fixtures.now, limit: 10)
        #expect(listed.map(\.createdAt) == [newer.createdAt, Fixtures.now], "newest first, the expired one left out")
        #expect(listed.allSatisfy { !$0.deviceKey })
        #expect(try await store.sessions(ofUser: alice.handle, now: Fixtures.now, limit: 1).count == 1)
        #expect(try await store.sessions(ofUser: Fixtures.bytes(9, count: 64), now: Fixtures.now, limit: 10).isEmpty)
    }
}
