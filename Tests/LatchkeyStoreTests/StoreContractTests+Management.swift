import Foundation
import LatchkeyStore
import Testing
import WebAuthn

/// The store contract, continued: renaming and removing passkeys, deleting accounts.
extension StoreContractTests {
    @Test(arguments: StoreBackend.all)
    func renameNamesOnlyTheOwnersPasskey(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let bob = Fixtures.user("bob", handle: 2)
        let credential = Fixtures.credential(7, of: alice)
        try await store.registerNew(alice, with: credential)
        try await store.registerNew(bob, with: Fixtures.credential(8, of: bob))
        #expect(try await store.credential(id: credential.id)?.name == nil, "a new passkey has no name of its own")

        let renamed = try await store.renameCredential(id: credential.id, ownedBy: alice.handle, name: "Phone")
        var expected = credential
        expected.name = "Phone"
        #expect(renamed == expected)
        #expect(try await store.credential(id: credential.id) == expected)

        #expect(try await store.renameCredential(id: credential.id, ownedBy: bob.handle, name: "Mine now") == nil)
        #expect(try await store.renameCredential(id: Fixtures.bytes(99, count: 16), ownedBy: alice.handle, name: "x") == nil)
        #expect(try await store.credential(id: credential.id)?.name == "Phone", "a refused rename writes nothing")

        #expect(try await store.renameCredential(id: credential.id, ownedBy: alice.handle, name: nil) == credential)
    }

    @Test(arguments: StoreBackend.all)
    func deleteRemovesOnlyTheOwnersPasskeyAndNeverTheLast(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let bob = Fixtures.user("bob", handle: 2)
        let first = Fixtures.credential(7, of: alice)
        let second = Fixtures.credential(8, of: alice)
        let bobs = Fixtures.credential(9, of: bob)
        try await store.registerNew(alice, with: first)
        try await store.register(NewRegistration(credential: second, newUser: nil))
        try await store.registerNew(bob, with: bobs)

        #expect(try await store.deleteCredential(id: bobs.id, ownedBy: alice.handle) == .notFound)
        #expect(try await store.credential(id: bobs.id) == bobs, "another user's passkey stays")
        #expect(try await store.deleteCredential(id: Fixtures.bytes(99, count: 16), ownedBy: alice.handle) == .notFound)

        #expect(try await store.deleteCredential(id: first.id, ownedBy: alice.handle) == .deleted)
        #expect(try await store.credential(id: first.id) == nil)
        #expect(try await store.credentials(ofUser: alice.handle) == [second])

        #expect(try await store.deleteCredential(id: second.id, ownedBy: alice.handle) == .lastCredential)
        #expect(try await store.credentials(ofUser: alice.handle) == [second], "the last passkey stays")
        #expect(try await store.deleteCredential(id: first.id, ownedBy: alice.handle) == .notFound, "deleted once only")
    }

    @Test(arguments: StoreBackend.all)
    func racingDeletesOfTheLastTwoPasskeysLeaveOne(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let credentials = [Fixtures.credential(7, of: alice), Fixtures.credential(8, of: alice)]
        try await store.registerNew(alice, with: credentials[0])
        try await store.register(NewRegistration(credential: credentials[1], newUser: nil))
        let outcomes = try await withThrowingTaskGroup(of: CredentialDeletion.self) { group in
            for credential in credentials {
                group.addTask { try await store.deleteCredential(id: credential.id, ownedBy: alice.handle) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == .deleted }.count == 1)
        #expect(outcomes.filter { $0 == .lastCredential }.count == 1)
        #expect(try await store.credentials(ofUser: alice.handle).count == 1)
    }

    @Test(arguments: StoreBackend.all)
    func deleteUserRemovesEverythingOfTheirsAndFreesTheUsername(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let bob = Fixtures.user("bob", handle: 2)
        let credentials = [Fixtures.credential(7, of: alice), Fixtures.credential(8, of: alice)]
        let session = Fixtures.session(1, of: alice)
        try await store.registerNew(alice, with: credentials[0], session: session)
        try await store.register(NewRegistration(credential: credentials[1], newUser: nil))
        try await store.savePendingCeremony(Fixtures.registration(40, for: alice))
        let bobsSession = Fixtures.session(2, of: bob)
        try await store.registerNew(bob, with: Fixtures.credential(9, of: bob), session: bobsSession)
        try await store.savePendingCeremony(Fixtures.registration(41, for: bob))

        let removed = try #require(try await store.deleteUser(handle: alice.handle))
        #expect(Set(removed) == Set(credentials.map(\.id)))
        #expect(try await store.user(handle: alice.handle) == nil)
        #expect(try await store.user(named: "alice") == nil)
        for credential in credentials { #expect(try await store.credential(id: credential.id) == nil) }
        #expect(try await store.hasSession(session.tokenHash) == false)
        #expect(try await store.takePendingCeremony(challengeHash: Fixtures.bytes(40)) == nil, "their pending ceremonies go too")
        #expect(try await store.deleteUser(handle: alice.handle) == nil, "an unknown user is nil")

        // Nobody else is touched.
        #expect(try await store.user(handle: bob.handle) == bob)
        #expect(try await store.hasSession(bobsSession.tokenHash))
        #expect(try await store.takePendingCeremony(challengeHash: Fixtures.bytes(41)) != nil)

        // The username can register again, as a new user.
        let newAlice = Fixtures.user("alice", handle: 3)
        try await store.registerNew(newAlice, with: Fixtures.credential(10, of: newAlice))
        #expect(try await store.user(named: "alice") == newAlice)
    }

    @Test(arguments: StoreBackend.all)
    func signInWithARemovedPasskeySaysSo(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1)
        let credential = Fixtures.credential(7, of: alice, signCount: 1)
        try await store.registerNew(alice, with: credential)
        try await store.register(NewRegistration(credential: Fixtures.credential(8, of: alice), newUser: nil))
        #expect(try await store.deleteCredential(id: credential.id, ownedBy: alice.handle) == .deleted)
        let late = Fixtures.signIn(credential, from: 1, to: 2, session: Fixtures.session(5, of: alice))
        #expect(try await store.recordAnswered(late) == .credentialRemoved)
        #expect(try await store.hasSession(Fixtures.bytes(5)) == false)
    }
}

/// The store contract, continued: secrets.
extension StoreContractTests {
    @Test(arguments: StoreBackend.all)
    func aSecretIsMadeOnceAndKept(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let first = try await store.secret(named: "decoys")
        #expect(first.count == 32)
        #expect(try await store.secret(named: "decoys") == first)
        #expect(try await store.secret(named: "other") != first, "each name has its own secret")
    }
}
