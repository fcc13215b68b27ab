import Foundation
import LatchkeyStore
import Testing
import Synchronization
import WebAuthn

/// The contract for pending ceremonies and sign-in.
extension StoreContractTests {
    // MARK: Pending ceremonies

    @Test(arguments: StoreBackend.all)
    func pendingCeremoniesRoundTripAndAreTakenOnce(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let registration = PendingCeremony(
            challengeHash: Fixtures.bytes(1), kind: .registration, userHandle: Fixtures.bytes(4, count: 64),
            username: "dora", displayName: "Dora the Explorer", userVerification: .required,
            bindingHash: Fixtures.bytes(5), expiresAt: Fixtures.now.addingTimeInterval(300), nonce: "n-0S6_WzA2Mj ünï")
        let usernameless = Fixtures.signInCeremony(2)
        var discouraged = Fixtures.signInCeremony(3)
        discouraged.userVerification = .discouraged
        discouraged.userHandle = Fixtures.bytes(4, count: 64)
        for ceremony in [registration, usernameless, discouraged] {
            try await store.savePendingCeremony(ceremony)
        }
        for ceremony in [registration, usernameless, discouraged] {
            #expect(try await store.takePendingCeremony(challengeHash: ceremony.challengeHash) == ceremony)
            #expect(try await store.takePendingCeremony(challengeHash: ceremony.challengeHash) == nil, "single use")
        }
        #expect(try await store.takePendingCeremony(challengeHash: Fixtures.bytes(9)) == nil)
    }

    @Test(arguments: StoreBackend.all)
    func pendingCeremonyIsTakenOnceUnderConcurrency(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let ceremony = Fixtures.signInCeremony(1)
        try await store.savePendingCeremony(ceremony)
        let taken = try await withThrowingTaskGroup(of: PendingCeremony?.self) { group in
            for _ in 0..<16 {
                group.addTask { try await store.takePendingCeremony(challengeHash: ceremony.challengeHash) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(taken.count == 16)
        #expect(taken.compactMap { $0 } == [ceremony], "exactly one take gets the ceremony")
    }

    @Test(arguments: StoreBackend.all)
    func expiredCeremonyIsStillReturned(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let expired = Fixtures.signInCeremony(1, expiresIn: -3_600)
        try await store.savePendingCeremony(expired)
        #expect(try await store.takePendingCeremony(challengeHash: expired.challengeHash) == expired)
    }

    // MARK: The start of a sign-in

    @Test(arguments: StoreBackend.all)
    func userWithCredentialsReadsTheNamedUserAndTheirPasskeysOldestFirst(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let older = Fixtures.detailedCredential(7, of: alice)  // a day before `now`
        let newer = Fixtures.credential(8, of: alice)
        try await store.registerNew(alice, with: newer)
        try await store.register(NewRegistration(credential: older, newUser: nil))
        let bob = Fixtures.user("bob", handle: 2)
        try await store.registerNew(bob, with: Fixtures.credential(9, of: bob))
        let carol = Fixtures.user("carol", handle: 3)
        try await store.createUser(carol)

        let found = try #require(try await store.userWithCredentials(named: "alice"))
        #expect(found.user == alice)
        #expect(found.credentials == [older, newer], "every passkey of hers, oldest first, none of bob's")
        let withoutPasskeys = try #require(try await store.userWithCredentials(named: "carol"))
        #expect(withoutPasskeys.user == carol && withoutPasskeys.credentials.isEmpty)
        #expect(try await store.userWithCredentials(named: "dave") == nil)
        #expect(try await store.userWithCredentials(named: "Alice") == nil, "names are exact")
    }

    @Test(arguments: StoreBackend.all)
    func signInLookupReadsCeremonyCredentialAndOwnerWithoutConsuming(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let credential = Fixtures.detailedCredential(7, of: alice)
        try await store.registerNew(alice, with: credential)
        var ceremony = Fixtures.signInCeremony(1, expiresIn: -1)
        ceremony.nonce = "login-attempt-7"
        try await store.savePendingCeremony(ceremony)

        let found = try await store.signInLookup(challengeHash: ceremony.challengeHash, credentialID: credential.id)
        #expect(found == SignInLookup(ceremony: ceremony, credential: credential, owner: alice))
        #expect(try await store.signInLookup(challengeHash: ceremony.challengeHash, credentialID: credential.id) == found, "read, not taken")
        #expect(try await store.takePendingCeremony(challengeHash: ceremony.challengeHash) == ceremony)
        let spent = try await store.signInLookup(challengeHash: ceremony.challengeHash, credentialID: credential.id)
        #expect(spent == SignInLookup(ceremony: nil, credential: credential, owner: alice))
    }

    @Test(arguments: StoreBackend.all)
    func signInLookupWithUnknownParts(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let credential = Fixtures.credential(7, of: alice)
        try await store.registerNew(alice, with: credential)
        let ceremony = Fixtures.signInCeremony(1)
        try await store.savePendingCeremony(ceremony)
        let unknownChallenge = Fixtures.bytes(2)
        let unknownCredential = Fixtures.bytes(8, count: 16)

        let neither = try await store.signInLookup(challengeHash: unknownChallenge, credentialID: unknownCredential)
        #expect(neither == SignInLookup(ceremony: nil, credential: nil, owner: nil))
        let noChallenge = try await store.signInLookup(challengeHash: unknownChallenge, credentialID: credential.id)
        #expect(noChallenge == SignInLookup(ceremony: nil, credential: credential, owner: alice))
        let noCredential = try await store.signInLookup(challengeHash: ceremony.challengeHash, credentialID: unknownCredential)
        #expect(noCredential == SignInLookup(ceremony: ceremony, credential: nil, owner: nil))
    }

    @Test(arguments: StoreBackend.all)
    func aChallengeSignsInOnceWhenItsAnswersRace(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        // A counter that stays 0 (as synced passkeys report it) leaves the challenge as the only guard.
        let credential = Fixtures.credential(7, of: alice, signCount: 0)
        try await store.registerNew(alice, with: credential)
        let ceremony = Fixtures.signInCeremony(1)
        try await store.savePendingCeremony(ceremony)
        let outcomes = try await withThrowingTaskGroup(of: SignInRecording.self) { group in
            for index in 0..<8 {
                var answer = Fixtures.signIn(credential, from: 0, to: 0, session: Fixtures.session(UInt8(10 + index), of: alice))
                answer.challengeHash = ceremony.challengeHash
                group.addTask { try await store.recordSignIn(answer) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == .recorded }.count == 1, "\(outcomes)")
        #expect(outcomes.filter { $0 == .challengeSpent }.count == 7, "\(outcomes)")
        var sessions = 0
        for index in 0..<8 where try await store.hasSession(Fixtures.bytes(UInt8(10 + index))) { sessions += 1 }
        #expect(sessions == 1, "only the winner's session exists")
        #expect(try await store.takePendingCeremony(challengeHash: ceremony.challengeHash) == nil, "consumed")
    }

    @Test(arguments: StoreBackend.all)
    func aSpentChallengeWritesNothingAndARefusedCounterStillSpendsIt(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let credential = Fixtures.credential(7, of: alice, signCount: 5)
        try await store.registerNew(alice, with: credential)
        let unanswered = Fixtures.signIn(credential, from: 5, to: 6, session: Fixtures.session(1, of: alice))
        #expect(try await store.recordSignIn(unanswered) == .challengeSpent, "no pending ceremony")
        #expect(try await store.credential(id: credential.id)?.signCount == 5)
        #expect(try await !store.hasSession(Fixtures.bytes(1)))

        let stale = Fixtures.signIn(credential, from: 4, to: 6, session: Fixtures.session(2, of: alice))
        #expect(try await store.recordAnswered(stale) == .counterMoved)
        #expect(try await store.takePendingCeremony(challengeHash: stale.challengeHash) == nil, "the challenge is spent")
        #expect(try await !store.hasSession(Fixtures.bytes(2)))
    }

    // MARK: Recording a sign-in

    @Test(arguments: StoreBackend.all)
    func signInUpdatesTheCredentialAndSwapsSessions(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let credential = Fixtures.credential(7, of: alice, signCount: 10)
        let replaced = Fixtures.session(1, of: alice)
        let kept = Fixtures.session(2, of: alice)
        try await store.registerNew(alice, with: credential, session: replaced)
        try await store.recordSignCountRegression(credentialID: credential.id)
        let first = Fixtures.signIn(credential, from: 10, to: 11, session: kept)
        #expect(try await store.recordAnswered(first) == .recorded)
        var expected = credential
        expected.signCount = 11
        expected.backedUp = false
        expected.userVerified = false
        expected.lastUsedAt = first.at
        expected.signCountRegressions = 1
        #expect(try await store.credential(id: credential.id) == expected)

        let started = Fixtures.session(3, of: alice)
        var signIn = Fixtures.signIn(credential, from: 11, to: 12, session: started, ending: [replaced.tokenHash])
        signIn.backedUp = true
        signIn.userVerified = true
        signIn.at = Fixtures.now.addingTimeInterval(30)
        #expect(try await store.recordAnswered(signIn) == .recorded)

        expected.signCount = 12
        expected.backedUp = true
        expected.userVerified = true
        expected.lastUsedAt = signIn.at
        #expect(try await store.credential(id: credential.id) == expected)
        #expect(try await store.session(tokenHash: started.tokenHash, now: Fixtures.now) == SessionWithUser(session: started, user: alice))
        #expect(try await store.hasSession(replaced.tokenHash) == false, "the replaced session must end")
        #expect(try await store.hasSession(kept.tokenHash), "sessions not listed stay")
    }

    @Test(arguments: StoreBackend.all)
    func failedCompareAndSetWritesNothing(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let credential = Fixtures.credential(7, of: alice, signCount: 10)
        let live = Fixtures.session(1, of: alice)
        try await store.registerNew(alice, with: credential, session: live)

        var stale = Fixtures.signIn(credential, from: 9, to: 11, session: Fixtures.session(2, of: alice), ending: [live.tokenHash])
        stale.userVerified = false
        stale.backedUp = false
        #expect(try await store.recordAnswered(stale) == .counterMoved)
        #expect(try await store.credential(id: credential.id) == credential, "the credential must be untouched")
        #expect(try await store.hasSession(Fixtures.bytes(2)) == false, "no session may start")
        #expect(try await store.hasSession(live.tokenHash), "replaced sessions stay alive")

        let unknown = Fixtures.signIn(
            Fixtures.credential(8, of: alice), from: 0, to: 1, session: Fixtures.session(3, of: alice), ending: [live.tokenHash])
        #expect(try await store.recordAnswered(unknown) == .credentialRemoved)
        #expect(try await store.hasSession(Fixtures.bytes(3)) == false)
        #expect(try await store.hasSession(live.tokenHash))
    }

    @Test(arguments: StoreBackend.all)
    func racingSignInsWithTheSameCounterCannotBothPass(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let credential = Fixtures.credential(7, of: alice, signCount: 5)
        let firstReplaced = Fixtures.session(1, of: alice)
        let secondReplaced = Fixtures.session(2, of: alice)
        try await store.registerNew(alice, with: credential, session: firstReplaced)
        try await store.register(NewRegistration(
            credential: Fixtures.credential(8, of: alice), newUser: nil, session: secondReplaced))

        // Both read counter 5 and verified assertions with 6 and 7; only one write may land.
        let attempts = [
            Fixtures.signIn(credential, from: 5, to: 6, session: Fixtures.session(11, of: alice), ending: [firstReplaced.tokenHash]),
            Fixtures.signIn(credential, from: 5, to: 7, session: Fixtures.session(12, of: alice), ending: [secondReplaced.tokenHash]),
        ]
        let results = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for (index, attempt) in attempts.enumerated() {
                group.addTask { (index, try await store.recordAnswered(attempt) == .recorded) }
            }
            return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
        }
        let winners = results.filter(\.value).map(\.key)
        try #require(winners.count == 1, "exactly one racing sign-in may pass")
        let winner = attempts[winners[0]]
        let loser = attempts[1 - winners[0]]
        #expect(try await store.credential(id: credential.id)?.signCount == winner.signCount)
        #expect(try await store.hasSession(winner.session.tokenHash))
        #expect(try await store.hasSession(winner.endingSessions[0]) == false)
        #expect(try await store.hasSession(loser.session.tokenHash) == false, "the loser starts no session")
        #expect(try await store.hasSession(loser.endingSessions[0]), "the loser ends no session")
    }

    @Test(arguments: StoreBackend.all)
    func signInStartingASessionForAnotherUserIsRefused(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let mallory = Fixtures.user("mallory", handle: 2)
        let credential = Fixtures.credential(7, of: alice, signCount: 3)
        try await store.registerNew(alice, with: credential)
        try await store.registerNew(mallory, with: Fixtures.credential(8, of: mallory))
        let crossed = Fixtures.signIn(credential, from: 3, to: 4, session: Fixtures.session(1, of: mallory))
        let error = await #expect(throws: StoreError.self) { try await store.recordAnswered(crossed) }
        #expect(error?.code == .userNotFound)
        #expect(try await store.credential(id: credential.id) == credential, "nothing is written")
        #expect(try await store.hasSession(Fixtures.bytes(1)) == false)
    }
}

extension StoreContractTests {
    /// Deleting a user while their passkey and their device key sign in: each call completes, finds the
    /// user gone, or (PostgreSQL, whose row locks the two take in opposite orders) is rolled back as
    /// `busy`, to be made again. Never a failure of the database, which the server would answer with a 500.
    /// (Nearly every round deadlocks on PostgreSQL, and each deadlock takes its `deadlock_timeout`, 1 s, to be found.)
    @Test(arguments: StoreBackend.all)
    func deletingAUserWhileTheySignInEndsCleanly(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let failures = UnexpectedFailures()
        for round in 0..<8 {
            let handle = Fixtures.bytes(index: round) + Fixtures.bytes(1, count: 62)
            let user = UserRecord(handle: handle, username: "user\(round)", displayName: "User", createdAt: Fixtures.now)
            let credential = Fixtures.credential(Fixtures.bytes(index: round) + Fixtures.bytes(2, count: 14), of: user, signCount: 1)
            try await store.registerNew(user, with: credential)
            let key = DeviceKeyRecord(
                id: Fixtures.bytes(index: round) + Fixtures.bytes(3, count: 30), userHandle: handle, publicKey: [4], name: nil,
                createdAt: Fixtures.now)
            try await store.saveDeviceKey(key, spendingTicket: nil)
            let signIn = Fixtures.signIn(
                credential, from: 1, to: 2, session: Fixtures.session(Fixtures.bytes(index: round) + Fixtures.bytes(4, count: 30), of: user))
            try await store.savePendingCeremony(Fixtures.signInCeremony(signIn.challengeHash))
            let keySession = Fixtures.session(Fixtures.bytes(index: round) + Fixtures.bytes(5, count: 30), of: user)
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await failures.noting("deleteUser") { _ = try await store.deleteUser(handle: handle) } }
                group.addTask {
                    await failures.noting("recordDeviceKeySignIn") {
                        _ = try await store.recordDeviceKeySignIn(id: key.id, at: Fixtures.now, session: keySession)
                    }
                }
                group.addTask { await failures.noting("recordSignIn") { _ = try await store.recordSignIn(signIn) } }
            }
        }
        let list = failures.list
        #expect(list.isEmpty, "\(backend.name): \(list.count) failures, the first: \(list.prefix(2))")
    }
}

/// The failures of store calls other than `busy` and `userNotFound`, which a race may rightly end in.
final class UnexpectedFailures: Sendable {
    private let failures = Mutex<[String]>([])

    var list: [String] { failures.withLock { $0 } }

    func noting(_ call: String, _ body: @Sendable () async throws -> Void) async {
        do {
            try await body()
        } catch let error as StoreError where error.code == .busy || error.code == .userNotFound {
        } catch {
            failures.withLock { $0.append("\(call): \(error)") }
        }
    }
}
