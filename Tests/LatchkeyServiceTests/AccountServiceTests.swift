import Foundation
@testable import LatchkeyService
import LatchkeyStore
import Testing
import WebAuthn

/// The signed-in user's own use cases, called on the service: their account, their passkeys, their history.
@Suite("Account and passkeys")
struct AccountServiceTests {
    @Test func everySignedInUseCaseRefusesACallerWithoutASession() async throws {
        let harness = try ServiceHarness()
        let stranger = harness.caller()
        let refusals: [(String, () async throws -> Void)] = [
            ("current", { _ = try await harness.service.account.current(caller: stranger) }),
            ("signOut", { try await harness.service.account.signOut(caller: stranger) }),
            ("delete", { try await harness.service.account.delete(caller: stranger) }),
            ("events", { _ = try await harness.service.account.events(SecurityEventQuery(), caller: stranger) }),
            ("list", { _ = try await harness.service.passkeys.list(caller: stranger) }),
            ("rename", { _ = try await harness.service.passkeys.rename([1, 2, 3], to: "x", caller: stranger) }),
            ("remove", { try await harness.service.passkeys.remove([1, 2, 3], caller: stranger) }),
        ]
        for (name, call) in refusals {
            let refusal = await #expect(throws: ServiceError.self, "\(name)") { try await call() }
            #expect(refusal?.code == .notSignedIn, "\(name)")
        }
    }

    @Test func theAccountNamesItsUserAndCountsTheirPasskeys() async throws {
        let harness = try ServiceHarness()
        let registered = try await harness.register("dana")
        let caller = try await harness.caller(signedInBy: registered)
        let (user, passkeys) = try await harness.service.account.current(caller: caller)
        #expect(user.username == "dana" && passkeys == 1)
    }

    @Test func signingOutEndsTheSessionAtOnceAndIsRecorded() async throws {
        let harness = try ServiceHarness()
        let registered = try await harness.register("eli")
        let caller = try await harness.caller(signedInBy: registered)
        try await harness.service.account.signOut(caller: caller)
        #expect(try await harness.service.sessions.current(presented: caller.sessionTokens) == nil)
        let events = try await harness.service.account.events(SecurityEventQuery(types: [.sessionEnded]), caller: caller)
        #expect(events.first?.detail == "signed out")
    }

    @Test func deletingTheAccountRemovesItsPasskeysAndFreesTheUsername() async throws {
        let harness = try ServiceHarness()
        let registered = try await harness.register("fay")
        let caller = try await harness.caller(signedInBy: registered)
        try await harness.service.account.delete(caller: caller)
        #expect(try await harness.store.user(named: "fay") == nil)
        #expect(try await harness.store.credential(id: registered.credentialID) == nil)
        #expect(try await harness.service.sessions.current(presented: caller.sessionTokens) == nil)
        let again = try await harness.register("fay", on: try harness.anotherAuthenticator())
        #expect(again.username == "fay", "the username is free again")
    }

    @Test func theHistoryIsTheCallersOwnOnly() async throws {
        let harness = try ServiceHarness()
        let gus = try await harness.register("gus")
        _ = try await harness.register("hal", on: try harness.anotherAuthenticator())
        let events = try await harness.service.account.events(SecurityEventQuery(), caller: try await harness.caller(signedInBy: gus))
        #expect(!events.isEmpty)
        #expect(events.allSatisfy { $0.username == "gus" }, "\(events.map(\.username))")
        #expect(events.contains { $0.type == .passkeyRegistered })
    }

    @Test func passkeysAreListedRenamedAndRemovedButNeverTheLast() async throws {
        let harness = try ServiceHarness()
        let registered = try await harness.register("ivy")
        let caller = try await harness.caller(signedInBy: registered)
        let second = try await harness.register("ivy", caller: caller, on: try harness.anotherAuthenticator())
        let listed = try await harness.service.passkeys.list(caller: caller)
        #expect(listed.user.username == "ivy" && listed.passkeys.count == 2 && listed.deviceKeys.isEmpty)

        let renamed = try await harness.service.passkeys.rename(second.credentialID, to: "Work laptop", caller: caller)
        #expect(renamed.name == "Work laptop")
        let blank = await #expect(throws: ServiceError.self) {
            try await harness.service.passkeys.rename(second.credentialID, to: "   ", caller: caller)
        }
        #expect(blank?.code == .invalidInput)

        try await harness.service.passkeys.remove(second.credentialID, caller: caller)
        let last = await #expect(throws: ServiceError.self) {
            try await harness.service.passkeys.remove(registered.credentialID, caller: caller)
        }
        #expect(last?.code == .conflict, "the last passkey stays: \(last?.message ?? "")")
        #expect(try await harness.service.passkeys.list(caller: caller).passkeys.map(\.id) == [registered.credentialID])
    }

    @Test func anotherUsersPasskeyIsNotFoundForTheCaller() async throws {
        let harness = try ServiceHarness()
        let jo = try await harness.register("jo")
        let kit = try await harness.register("kit", on: try harness.anotherAuthenticator())
        let caller = try await harness.caller(signedInBy: jo)
        for attempt in [
            { _ = try await harness.service.passkeys.rename(kit.credentialID, to: "mine now", caller: caller) },
            { try await harness.service.passkeys.remove(kit.credentialID, caller: caller) },
        ] as [() async throws -> Void] {
            let refusal = await #expect(throws: ServiceError.self) { try await attempt() }
            #expect(refusal?.code == .notFound)
        }
        #expect(try await harness.store.credential(id: kit.credentialID)?.name == nil, "kit's passkey is untouched")
    }
}
