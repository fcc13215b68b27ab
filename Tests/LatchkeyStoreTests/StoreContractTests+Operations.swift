import Foundation
import LatchkeyStore
import Testing

/// The store contract, continued: what readiness checks and metrics ask.
extension StoreContractTests {
    @Test(arguments: StoreBackend.all)
    func anOpenStoreIsWritableAndAClosedOneIsNot(backend: StoreBackend) async throws {
        let store = try await backend.make()
        try await store.checkWritable(now: Fixtures.now)
        try await store.checkWritable(now: Fixtures.now.addingTimeInterval(1))
        let shutdown = Task { try await store.run() }
        shutdown.cancel()
        try await shutdown.value
        let error = await #expect(throws: StoreError.self) { try await store.checkWritable(now: Fixtures.now) }
        #expect(error?.code == .unavailable)
    }

    @Test(arguments: StoreBackend.all)
    func liveRecordCountsLeaveOutExpiredRows(backend: StoreBackend) async throws {
        let store = try await backend.make()
        #expect(try await store.liveRecordCounts(now: Fixtures.now) == LiveRecordCounts(pendingCeremonies: 0, sessions: 0))
        let alice = Fixtures.user("alice", handle: 1)
        try await store.registerNew(alice, with: Fixtures.credential(7, of: alice), session: Fixtures.session(1, of: alice))
        try await store.register(NewRegistration(
            credential: Fixtures.credential(8, of: alice), newUser: nil, session: Fixtures.session(2, of: alice, expiresIn: -1)))
        for (challenge, lifetime) in [(1, 300.0), (2, 60), (3, 0), (4, -60)] {
            try await store.savePendingCeremony(Fixtures.signInCeremony(UInt8(challenge), expiresIn: lifetime))
        }
        #expect(try await store.liveRecordCounts(now: Fixtures.now) == LiveRecordCounts(pendingCeremonies: 2, sessions: 1))
        #expect(
            try await store.liveRecordCounts(now: Fixtures.now.addingTimeInterval(100))
                == LiveRecordCounts(pendingCeremonies: 1, sessions: 1))
    }
}
