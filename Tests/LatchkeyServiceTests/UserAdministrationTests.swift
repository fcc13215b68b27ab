import Foundation
@testable import LatchkeyService
import LatchkeyStore
import Testing
import WebAuthn

/// The admin use cases a backend calls with its admin key, on the service itself: users made, found, changed,
/// disabled and removed; their passkeys, sessions and enrollment tickets; each change an event.
@Suite("User administration")
struct UserAdministrationTests {
    static func admin(_ harness: ServiceHarness) -> Caller {
        var caller = harness.caller()
        caller.origin = EventOrigin(clientAddress: "198.51.100.4", userAgent: "backend", requestID: nil, actor: SecurityEventActor(.admin, name: "crm"))
        return caller
    }

    @Test func aUserIsCreatedFoldedAndFoundByNameOrExternalID() async throws {
        let harness = try ServiceHarness()
        let users = harness.service.users
        let created = try await users.create(CreateUserRequest(username: "Lena", displayName: "Lena L.", externalId: "crm-7"), caller: Self.admin(harness))
        #expect(created.username == "lena" && created.displayName == "Lena L." && created.externalId == "crm-7")
        #expect(try await users.user(named: "LENA").handle == created.handle)
        #expect(try await users.user(externalId: "crm-7").handle == created.handle)
        #expect(try await users.users(after: nil, limit: 10).map(\.user.username) == ["lena"])
        let events = try await harness.service.eventLog.events(SecurityEventQuery(types: [.userCreated]))
        #expect(events.first?.actor == SecurityEventActor(.admin, name: "crm"))
    }

    @Test func aTakenUsernameOrExternalIDAndAnUnknownUserAreRefused() async throws {
        let harness = try ServiceHarness()
        let users = harness.service.users
        _ = try await users.create(CreateUserRequest(username: "mo", externalId: "crm-1"), caller: Self.admin(harness))
        // The store's refusals pass through as they are (the transport answers them 409).
        let taken = await #expect(throws: StoreError.self) {
            try await users.create(CreateUserRequest(username: "MO"), caller: Self.admin(harness))
        }
        #expect(taken?.code == .usernameTaken)
        let externalTaken = await #expect(throws: StoreError.self) {
            try await users.create(CreateUserRequest(username: "nia", externalId: "crm-1"), caller: Self.admin(harness))
        }
        #expect(externalTaken?.code == .externalIdTaken)
        let unknown = await #expect(throws: ServiceError.self) { try await users.user(named: "nobody") }
        #expect(unknown?.code == .notFound && unknown?.message == "user \"nobody\" does not exist")
        let noExternal = await #expect(throws: ServiceError.self) { try await users.user(externalId: "crm-404") }
        #expect(noExternal?.code == .notFound)
        let badName = await #expect(throws: ServiceError.self) {
            try await users.create(CreateUserRequest(username: "   "), caller: Self.admin(harness))
        }
        #expect(badName?.code == .invalidInput)
    }

    @Test func anUpdateChangesWhatItNamesAndNothingElse() async throws {
        let harness = try ServiceHarness()
        let users = harness.service.users
        let registered = try await harness.register("otto")
        let before = try await users.user(named: "otto")
        var change = UpdateUserRequest()
        change.username = "Otto2"
        change.displayName = "Otto the Second"
        let after = try await users.update(before, with: change, caller: Self.admin(harness))
        #expect(after.username == "otto2" && after.displayName == "Otto the Second" && after.handle == before.handle)
        #expect(try await harness.store.credential(id: registered.credentialID)?.userHandle == before.handle, "passkeys stay")
        let nothing = await #expect(throws: ServiceError.self) { try await users.update(after, with: UpdateUserRequest(), caller: Self.admin(harness)) }
        #expect(nothing?.code == .invalidInput)
    }

    @Test func disablingAnAccountEndsItsSessionsAndBarsItsTickets() async throws {
        let harness = try ServiceHarness()
        let users = harness.service.users
        let registered = try await harness.register("pia")
        let signedIn = try await harness.caller(signedInBy: registered)
        var change = UpdateUserRequest()
        change.disabled = true
        let disabled = try await users.update(try await users.user(named: "pia"), with: change, caller: Self.admin(harness))
        #expect(disabled.disabled)
        #expect(try await harness.service.sessions.current(presented: signedIn.sessionTokens) == nil, "its sessions ended")
        let ticket = await #expect(throws: ServiceError.self) { try await users.issueTicket(for: disabled, expiresIn: nil, caller: Self.admin(harness)) }
        #expect(ticket?.code == .conflict && ticket?.reason == .accountDisabled)
        let issued = try await harness.signInOptions("pia")
        let refused = await #expect(throws: ServiceError.self) {
            try await harness.service.signIn.finish(try harness.answer(issued.options), caller: harness.caller(), presented: .none)
        }
        #expect(refused?.reason == .accountDisabled)
    }

    @Test func ticketsAreIssuedWithALinkWithinTheirLifetimesAndRevoked() async throws {
        let harness = try ServiceHarness()
        let users = harness.service.users
        let user = try await users.create(CreateUserRequest(username: "quin"), caller: Self.admin(harness))
        let issued = try await users.issueTicket(for: user, expiresIn: 120, caller: Self.admin(harness))
        #expect(issued.ticket.hasPrefix("lk_ticket_"))
        #expect(issued.enrollmentURL == "\(harness.configuration.origins[0])/#ticket=\(issued.ticket)", "a fragment: no log keeps it")
        #expect(abs(issued.expiresAt.timeIntervalSinceNow - 120) < 30)
        for lifetime in [0, 29, 86_401] {
            let refused = await #expect(throws: ServiceError.self) { try await users.issueTicket(for: user, expiresIn: lifetime, caller: Self.admin(harness)) }
            #expect(refused?.code == .invalidInput, "\(lifetime)")
        }
        _ = try await users.issueTicket(for: user, expiresIn: nil, caller: Self.admin(harness))
        #expect(try await users.revokeTickets(of: user, caller: Self.admin(harness)) == 2)
        #expect(try await users.revokeTickets(of: user, caller: Self.admin(harness)) == 0)
    }

    @Test func anAdminRemovesAPasskeyEvenTheLastAndOnlyTheUsersOwn() async throws {
        let harness = try ServiceHarness()
        let users = harness.service.users
        let rae = try await harness.register("rae")
        let sol = try await harness.register("sol", on: try harness.anotherAuthenticator())
        let user = try await users.user(named: "rae")
        let notTheirs = await #expect(throws: ServiceError.self) { try await users.removePasskey(sol.credentialID, of: user, caller: Self.admin(harness)) }
        #expect(notTheirs?.code == .notFound)
        try await users.removePasskey(rae.credentialID, of: user, caller: Self.admin(harness))
        #expect(try await users.keys(of: user).passkeys.isEmpty, "an admin may remove the last one")
        let noKey = await #expect(throws: ServiceError.self) { try await users.removeDeviceKey([9, 9, 9], of: user, caller: Self.admin(harness)) }
        #expect(noKey?.code == .notFound)
    }

    @Test func sessionsAreListedAndEndedAndTheUserDeleted() async throws {
        let harness = try ServiceHarness()
        let users = harness.service.users
        let registered = try await harness.register("tao")
        _ = try await harness.service.signIn.finish(
            try harness.answer(try await harness.signInOptions("tao").options), caller: harness.caller(), presented: .none)
        let user = try await users.user(named: "tao")
        #expect(try await users.sessions(of: user).count == 2)
        #expect(try await users.endSessions(of: user, caller: Self.admin(harness)) == 2)
        #expect(try await users.sessions(of: user).isEmpty)
        try await users.delete(user, caller: Self.admin(harness))
        #expect(try await harness.store.user(named: "tao") == nil)
        #expect(try await harness.store.credential(id: registered.credentialID) == nil)
        let again = await #expect(throws: ServiceError.self) { try await users.delete(user, caller: Self.admin(harness)) }
        #expect(again?.code == .notFound)
    }
}
