import Foundation
import LatchkeyStore
import Testing

/// The contract for a registration result's two round trips: the lookup reads the ceremony, its user and
/// whether the user handle has a history, without consuming anything; the registration consumes the
/// challenge in its own transaction, so a challenge registers at most once and a refused registration
/// leaves it for the caller to spend.
extension StoreContractTests {
    @Test(arguments: StoreBackend.all)
    func registrationLookupReadsCeremonyUserAndHistoryWithoutConsuming(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        try await store.register(NewRegistration(
            credential: Fixtures.credential(7, of: alice), newUser: alice, events: [Self.event(.userCreated, 1, user: alice)]))
        let bob = Fixtures.user("bob", handle: 2)
        try await store.register(NewRegistration(
            credential: Fixtures.credential(8, of: bob), newUser: bob, events: [Self.event(.userCreated, 2, user: bob)]))
        _ = try await store.deleteUser(handle: bob.handle, recording: [Self.event(.accountDeleted, 3, user: bob)])
        let carol = Fixtures.user("carol", handle: 3)
        let ceremonies = [alice, bob, carol].enumerated().map { Fixtures.registration(UInt8(40 + $0.offset), for: $0.element) }
        for ceremony in ceremonies { try await store.savePendingCeremony(ceremony) }

        #expect(try await store.registrationLookup(challengeHash: Fixtures.bytes(99))
            == RegistrationLookup(ceremony: nil, user: nil, userHandleHasHistory: false))
        let another = try await store.registrationLookup(challengeHash: ceremonies[0].challengeHash)
        #expect(another == RegistrationLookup(ceremony: ceremonies[0], user: alice, userHandleHasHistory: true))
        #expect(try await store.registrationLookup(challengeHash: ceremonies[1].challengeHash)
            == RegistrationLookup(ceremony: ceremonies[1], user: nil, userHandleHasHistory: true), "deleted since: no user, a history")
        #expect(try await store.registrationLookup(challengeHash: ceremonies[2].challengeHash)
            == RegistrationLookup(ceremony: ceremonies[2], user: nil, userHandleHasHistory: false), "a new user")
        #expect(try await store.registrationLookup(challengeHash: ceremonies[0].challengeHash) == another, "read, not taken")
        #expect(try await store.takePendingCeremony(challengeHash: ceremonies[0].challengeHash) == ceremonies[0])
        #expect(try await store.registrationLookup(challengeHash: ceremonies[0].challengeHash)
            == RegistrationLookup(ceremony: nil, user: nil, userHandleHasHistory: false))
    }

    @Test(arguments: StoreBackend.all)
    func aChallengeRegistersOnceWhenItsAnswersRace(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        try await store.registerNew(alice, with: Fixtures.credential(1, of: alice))
        let ceremony = Fixtures.registration(40, for: alice)
        try await store.savePendingCeremony(ceremony)
        let outcomes = await withTaskGroup(of: StoreError.Code?.self) { group in
            for index in 0..<8 {
                let registration = NewRegistration(
                    challengeHash: ceremony.challengeHash, credential: Fixtures.credential(UInt8(10 + index), of: alice), newUser: nil,
                    events: [Self.event(.passkeyRegistered, 10 + index, user: alice)])
                group.addTask {
                    do {
                        try await store.register(registration)
                        return nil
                    } catch {
                        return (error as? StoreError)?.code ?? .database
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == nil }.count == 1, "\(outcomes)")
        #expect(outcomes.filter { $0 == .challengeSpent }.count == 7, "\(outcomes)")
        #expect(try await store.credentials(ofUser: alice.handle).count == 2, "only the winner's passkey is stored")
        let events = try await store.securityEvents(SecurityEventQuery(userHandle: alice.handle, types: [.passkeyRegistered]))
        #expect(events.count == 1, "only the winner's event is written")
        #expect(try await store.registrationLookup(challengeHash: ceremony.challengeHash).ceremony == nil)
    }

    @Test(arguments: StoreBackend.all)
    func aRefusedRegistrationKeepsItsChallengeAndWritesNothing(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let passkey = Fixtures.credential(1, of: alice)
        try await store.registerNew(alice, with: passkey)
        let carol = Fixtures.user("carol", handle: 3)
        let ceremony = Fixtures.registration(40, for: carol)
        try await store.savePendingCeremony(ceremony)

        // The passkey is alice's already: refused, and the challenge is still there for the caller to spend.
        let clash = NewRegistration(
            challengeHash: ceremony.challengeHash, credential: Fixtures.credential(passkey.id, of: carol), newUser: carol,
            events: [Self.event(.userCreated, 1, user: carol)])
        await #expect { try await store.register(clash) } throws: { ($0 as? StoreError)?.code == .credentialAlreadyRegistered }
        #expect(try await store.registrationLookup(challengeHash: ceremony.challengeHash).ceremony == ceremony)
        #expect(try await store.user(handle: carol.handle) == nil)

        // A challenge nobody issued (or spent since) registers nothing.
        let unanswerable = NewRegistration(
            challengeHash: Fixtures.bytes(99), credential: Fixtures.credential(2, of: carol), newUser: carol,
            events: [Self.event(.userCreated, 2, user: carol)])
        await #expect { try await store.register(unanswerable) } throws: { ($0 as? StoreError)?.code == .challengeSpent }
        #expect(try await store.user(handle: carol.handle) == nil)
        #expect(try await store.securityEvents(SecurityEventQuery(userHandle: carol.handle)).isEmpty)

        let answered = NewRegistration(
            challengeHash: ceremony.challengeHash, credential: Fixtures.credential(2, of: carol), newUser: carol,
            events: [Self.event(.userCreated, 3, user: carol)])
        try await store.register(answered)
        #expect(try await store.user(handle: carol.handle) == carol)
        #expect(try await store.registrationLookup(challengeHash: ceremony.challengeHash).ceremony == nil, "consumed with the record")
    }
}
