import Foundation
import LatchkeyStore
import Testing
import WebAuthn

/// What every `LatchkeyStore` must do, written once against the protocol and run against each
/// backend in ``StoreBackend/all``. This file: users, credentials and registration; the sign-in and
/// session halves are in the extensions beside it.
@Suite("Store contract", .closesTestDatabases)
struct StoreContractTests {
    // MARK: Records

    @Test(arguments: StoreBackend.all)
    func everyCredentialFieldRoundTrips(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let detailed = Fixtures.detailedCredential(7, of: alice)
        try await store.registerNew(alice, with: detailed)
        // Empty lists, absent options and the third residentKey state.
        var bare = Fixtures.credential(8, of: alice)
        bare.transports = []
        bare.residentKey = nil
        bare.publicKey = []
        var single = Fixtures.credential(9, of: alice)
        single.transports = [.smartCard]
        single.trustPath = [[0x30]]
        single.credentialProtectionPolicy = 1
        single.attestationFormat = AttestationFormatIdentifier(rawValue: "some-future-format")
        single.attestationType = .self
        single.algorithm = COSEAlgorithm(rawValue: -65_535)
        for credential in [bare, single] {
            try await store.register(NewRegistration(credential: credential, newUser: nil))
        }

        #expect(try await store.credential(id: detailed.id) == detailed)
        #expect(try await store.credential(id: bare.id) == bare)
        #expect(try await store.credential(id: single.id) == single)
        #expect(try await store.user(handle: alice.handle) == alice)
    }

    @Test(arguments: StoreBackend.all)
    func signCountRegressionsAreCounted(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let credential = Fixtures.credential(7, of: alice)
        let other = Fixtures.credential(8, of: alice)
        try await store.registerNew(alice, with: credential)
        try await store.register(NewRegistration(credential: other, newUser: nil))
        try await store.recordSignCountRegression(credentialID: credential.id)
        try await store.recordSignCountRegression(credentialID: credential.id)
        try await store.recordSignCountRegression(credentialID: Fixtures.bytes(99, count: 16))
        #expect(try await store.credential(id: credential.id)?.signCountRegressions == 2)
        #expect(try await store.credential(id: other.id)?.signCountRegressions == 0)
    }

    @Test(arguments: StoreBackend.all)
    func usernamesMatchExactly(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let odd = Fixtures.user("bob\u{0}evil ünïcode", handle: 2)
        try await store.registerNew(alice, with: Fixtures.credential(7, of: alice))
        try await store.registerNew(odd, with: Fixtures.credential(8, of: odd))
        #expect(try await store.user(named: "Alice") == nil)
        #expect(try await store.user(named: "alice ") == nil)
        #expect(try await store.user(named: "bob") == nil, "a NUL must not end the username")
        #expect(try await store.user(named: odd.username) == odd)
        #expect(try await store.user(handle: odd.handle)?.username == odd.username)
    }

    // MARK: Registration

    @Test(arguments: StoreBackend.all)
    func newUserWithFirstCredential(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let credential = Fixtures.credential(7, of: alice)
        #expect(try await store.user(named: "alice") == nil)
        try await store.registerNew(alice, with: credential)
        #expect(try await store.user(named: "alice") == alice)
        #expect(try await store.user(handle: alice.handle) == alice)
        #expect(try await store.credentials(ofUser: alice.handle) == [credential])
        #expect(try await store.credential(id: credential.id) == credential)
        #expect(try await store.credentials(ofUser: Fixtures.bytes(2, count: 64)).isEmpty)
        #expect(try await store.user(handle: Fixtures.bytes(2, count: 64)) == nil)
        #expect(try await store.credential(id: Fixtures.bytes(8, count: 16)) == nil)
    }

    @Test(arguments: StoreBackend.all)
    func credentialsOfAUserComeOldestFirst(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let bob = Fixtures.user("bob", handle: 2)
        let first = Fixtures.credential(7, of: alice)
        var older = Fixtures.credential(8, of: alice)
        older.createdAt = Fixtures.now.addingTimeInterval(-100)
        var newer = Fixtures.credential(9, of: alice)
        newer.createdAt = Fixtures.now.addingTimeInterval(100)
        try await store.registerNew(alice, with: first)
        try await store.registerNew(bob, with: Fixtures.credential(10, of: bob))
        for credential in [newer, older] {
            try await store.register(NewRegistration(credential: credential, newUser: nil))
        }
        #expect(try await store.credentials(ofUser: alice.handle) == [older, first, newer])
        #expect(try await store.credentials(ofUser: bob.handle).map(\.id) == [Fixtures.bytes(10, count: 16)])
    }

    @Test(arguments: StoreBackend.all)
    func pendingChallengesAreThoseNotYetTaken(backend: StoreBackend) async throws {
        let store = try await backend.make()
        #expect(try await store.pendingChallenges(among: []).isEmpty)
        try await store.savePendingCeremony(Fixtures.signInCeremony(1))
        try await store.savePendingCeremony(Fixtures.signInCeremony(2, expiresIn: -10))
        try await store.savePendingCeremony(Fixtures.signInCeremony(3))
        _ = try await store.takePendingCeremony(challengeHash: Fixtures.bytes(3))
        let asked = [1, 2, 3, 4].map { Fixtures.bytes(UInt8($0)) }
        #expect(try await store.pendingChallenges(among: asked) == [Fixtures.bytes(1), Fixtures.bytes(2)], "expired ones too, until purged")
    }

    @Test(arguments: StoreBackend.all)
    func racingFirstRegistrationsOfOneUsernameLeaveOneUser(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let attempts = 12
        let contenders = (0..<attempts).map { index in
            let user = Fixtures.user("carol", handle: UInt8(10 + index))
            return (user: user, credential: Fixtures.credential(UInt8(100 + index), of: user))
        }
        let outcomes = await withTaskGroup(of: Result<Int, any Error>.self) { group in
            for (index, contender) in contenders.enumerated() {
                group.addTask {
                    do {
                        try await store.registerNew(contender.user, with: contender.credential)
                        return .success(index)
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let winners = outcomes.compactMap { try? $0.get() }
        try #require(winners.count == 1, "exactly one registration must win")
        let losses = outcomes.compactMap { outcome -> StoreError.Code? in
            guard case .failure(let error) = outcome else { return nil }
            return (error as? StoreError)?.code
        }
        #expect(losses == Array(repeating: .usernameTaken, count: attempts - 1))

        let winner = contenders[winners[0]]
        #expect(try await store.user(named: "carol") == winner.user)
        #expect(try await store.credentials(ofUser: winner.user.handle) == [winner.credential])
        for (index, loser) in contenders.enumerated() where index != winners[0] {
            #expect(try await store.user(handle: loser.user.handle) == nil, "no orphan user")
            #expect(try await store.credential(id: loser.credential.id) == nil, "no orphan credential")
        }
    }

    @Test(arguments: StoreBackend.all)
    func duplicateCredentialIDIsRefusedWritingNothing(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let bob = Fixtures.user("bob", handle: 2)
        let credential = Fixtures.credential(7, of: alice)
        try await store.registerNew(alice, with: credential)

        // As a new user's first passkey: the new user is rolled back, the session never starts.
        let asNewUser = NewRegistration(
            credential: Fixtures.credential(7, of: bob), newUser: bob, session: Fixtures.session(5, of: bob))
        let first = await #expect(throws: StoreError.self) { try await store.register(asNewUser) }
        #expect(first?.code == .credentialAlreadyRegistered)
        #expect(try await store.user(named: "bob") == nil, "the new user must be rolled back")
        #expect(try await store.hasSession(Fixtures.bytes(5)) == false)

        // Added again to its own user.
        let again = NewRegistration(credential: credential, newUser: nil)
        let second = await #expect(throws: StoreError.self) { try await store.register(again) }
        #expect(second?.code == .credentialAlreadyRegistered)
        #expect(try await store.credentials(ofUser: alice.handle) == [credential])
    }

    @Test(arguments: StoreBackend.all)
    func credentialForAMissingUserIsRefused(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let ghost = Fixtures.user("ghost", handle: 9)
        let orphan = Fixtures.credential(7, of: ghost)
        let error = await #expect(throws: StoreError.self) {
            try await store.register(NewRegistration(credential: orphan, newUser: nil))
        }
        #expect(error?.code == .userNotFound)
        #expect(try await store.credential(id: orphan.id) == nil)
        #expect(try await store.user(handle: ghost.handle) == nil)
    }

    @Test(arguments: StoreBackend.all)
    func registrationStartsItsSessionAndEndsReplacedOnes(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let bob = Fixtures.user("bob", handle: 2)
        let first = Fixtures.session(1, of: alice)
        try await store.registerNew(alice, with: Fixtures.credential(7, of: alice), session: first)
        try await store.registerNew(bob, with: Fixtures.credential(8, of: bob), session: Fixtures.session(3, of: bob))
        #expect(try await store.session(tokenHash: first.tokenHash, now: Fixtures.now) == SessionWithUser(session: first, user: alice))

        let second = Fixtures.session(2, of: alice)
        try await store.register(NewRegistration(
            credential: Fixtures.credential(9, of: alice), newUser: nil, session: second,
            endingSessions: [first.tokenHash, Fixtures.bytes(77)]))
        #expect(try await store.hasSession(first.tokenHash) == false, "the replaced session must end")
        #expect(try await store.session(tokenHash: second.tokenHash, now: Fixtures.now) == SessionWithUser(session: second, user: alice))
        #expect(try await store.hasSession(Fixtures.bytes(3)), "other sessions stay")
    }

    @Test(arguments: StoreBackend.all)
    func registrationWithoutSessionStartsNone(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let first = Fixtures.session(1, of: alice)
        try await store.registerNew(alice, with: Fixtures.credential(7, of: alice), session: first)
        try await store.register(NewRegistration(credential: Fixtures.credential(8, of: alice), newUser: nil))
        #expect(try await store.hasSession(first.tokenHash))
        #expect(try await store.credentials(ofUser: alice.handle).count == 2)
    }

    @Test(arguments: StoreBackend.all)
    func registrationForAnotherOwnerIsRefused(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let mallory = Fixtures.user("mallory", handle: 2)
        try await store.registerNew(alice, with: Fixtures.credential(7, of: alice))

        // A new user whose first credential names an existing user as its owner.
        let hijack = NewRegistration(credential: Fixtures.credential(8, of: alice), newUser: mallory)
        let first = await #expect(throws: StoreError.self) { try await store.register(hijack) }
        #expect(first?.code == .userNotFound)
        #expect(try await store.user(named: "mallory") == nil)

        // A session for someone other than the credential's owner.
        try await store.registerNew(mallory, with: Fixtures.credential(9, of: mallory))
        let crossed = NewRegistration(
            credential: Fixtures.credential(10, of: alice), newUser: nil, session: Fixtures.session(1, of: mallory))
        let second = await #expect(throws: StoreError.self) { try await store.register(crossed) }
        #expect(second?.code == .userNotFound)
        #expect(try await store.credentials(ofUser: alice.handle).map(\.id) == [Fixtures.bytes(7, count: 16)])
        #expect(try await store.hasSession(Fixtures.bytes(1)) == false)
    }
}
