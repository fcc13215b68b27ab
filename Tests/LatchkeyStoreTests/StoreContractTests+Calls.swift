import Foundation
import LatchkeyStore
import Synchronization
import Testing

@testable import LatchkeyStoreSQLite

/// The store contract, continued: every call made under the store's ``StoreCallPolicy``, once,
/// named after its method.
extension StoreContractTests {
    @Test(arguments: StoreBackend.all)
    func everyCallIsTimedOnceUnderItsMethodsName(backend: StoreBackend) async throws {
        let timed = TimedOperations()
        let store = try await backend.make().applying(StoreCallPolicy(busyRetry: .seconds(1), timing: timed.note))
        let alice = Fixtures.user("alice", handle: 1)
        let credential = Fixtures.credential(7, of: alice, signCount: 1)
        try await store.registerNew(alice, with: credential)
        _ = try await store.user(named: "alice")
        _ = try await store.user(handle: alice.handle)
        _ = try await store.credentials(ofUser: alice.handle)
        _ = try await store.passkeyShapes()
        _ = try await store.recordAnswered(Fixtures.signIn(credential, from: 1, to: 2, session: Fixtures.session(1, of: alice)))
        _ = try await store.updateUser(UserRecord(handle: alice.handle, username: "alicia", displayName: "Alicia", createdAt: alice.createdAt),
            from: alice, recording: [])
        _ = try await store.renameCredential(id: credential.id, ownedBy: alice.handle, name: "Phone")
        _ = try await store.deleteCredentialEvenIfLast(id: credential.id, ownedBy: alice.handle)
        try await store.purgeExpired(now: Fixtures.now)
        try await store.purgeSecurityEvents(eventsBefore: Fixtures.now, deliveriesBefore: Fixtures.now)
        #expect(timed.operations == [
            "register", "user", "user", "credentials", "passkeyShapes", "savePendingCeremony", "recordSignIn", "updateUser",
            "renameCredential", "deleteCredential", "purgeExpired", "purgeSecurityEvents",
        ])
    }

    @Test(arguments: StoreBackend.all)
    func aStoreOpenedDirectlyTimesNothingAndSharesItsDataWithTheOneApplyingAPolicy(backend: StoreBackend) async throws {
        let timed = TimedOperations()
        let store = try await backend.make()
        let timedStore = store.applying(StoreCallPolicy(timing: timed.note))
        let alice = Fixtures.user("alice", handle: 1)
        try await store.registerNew(alice, with: Fixtures.credential(7, of: alice))
        #expect(try await timedStore.user(named: "alice") == alice)
        #expect(timed.operations == ["user"], "the direct store's registration was not timed")
    }
}

@Suite("Store call policy")
struct StoreCallPolicyTests {
    let path = TemporaryDatabase.newPath()

    /// An operator's `sqlite3` holding the write lock: under the server's policy a write is made again
    /// until the retry ends, then fails as unavailable; opened directly, it fails as busy at once.
    @Test func aCallABusyDatabaseRefusesIsMadeAgainUntilTheRetryEnds() async throws {
        let direct = try SQLiteStore(path: path, lockWait: .zero)
        let retrying = direct.applying(StoreCallPolicy(busyRetry: .milliseconds(300)))
        let holder = try SQLiteConnection(path: path)
        holder.waitForLocks(upTo: .zero)
        try holder.execute("BEGIN EXCLUSIVE")
        let started = ContinuousClock.now
        let error = await #expect(throws: StoreError.self) { try await retrying.savePendingCeremony(Fixtures.signInCeremony(1)) }
        let waited = ContinuousClock.now - started
        #expect(error?.code == .unavailable && error?.message.contains("still busy after") == true, "\(String(describing: error))")
        // At least the retry. No upper bound: the whole suite shares two cores, and a pause may resume late.
        #expect(waited >= .milliseconds(300), "waited \(waited)")
        let directError = await #expect(throws: StoreError.self) { try await direct.savePendingCeremony(Fixtures.signInCeremony(1)) }
        #expect(directError?.code == .busy)
        try holder.execute("ROLLBACK")
        try await retrying.savePendingCeremony(Fixtures.signInCeremony(1))
        #expect(try await direct.takePendingCeremony(challengeHash: Fixtures.signInCeremony(1).challengeHash) != nil)
    }

    /// A call that was busy twice and then went through: made three times, timed once. (A retry long
    /// enough for its two short pauses on a loaded machine.)
    @Test func aCallThatStopsBeingBusyReturnsItsResultTimedOnce() async throws {
        let timed = TimedOperations()
        let attempts = Mutex(0)
        let policy = StoreCallPolicy(busyRetry: .seconds(120), timing: timed.note)
        let result = try await policy.call("secret(named:)") {
            let attempt = attempts.withLock { attempts in
                attempts += 1
                return attempts
            }
            if attempt < 3 { throw StoreError(.busy, "database is locked") }
            return attempt
        }
        #expect(result == 3)
        #expect(timed.operations == ["secret"])
    }

    @Test func failuresOtherThanBusyAreNotMadeAgain() async throws {
        let attempts = Mutex(0)
        let error = await #expect(throws: StoreError.self) {
            try await StoreCallPolicy(busyRetry: .seconds(5)).call("register(_:)") {
                attempts.withLock { $0 += 1 }
                throw StoreError(.usernameTaken, "taken")
            }
        }
        #expect(error?.code == .usernameTaken && attempts.withLock { $0 } == 1)
    }
}

/// The operations a policy's timing was told of, in order.
final class TimedOperations: Sendable {
    private let noted = Mutex<[String]>([])

    var operations: [String] { noted.withLock { $0 } }

    var note: @Sendable (_ function: String, _ started: ContinuousClock.Instant) -> Void {
        { function, _ in self.noted.withLock { $0.append(StoreCallPolicy.operation(function)) } }
    }
}
