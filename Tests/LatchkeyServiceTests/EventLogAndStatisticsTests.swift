import Foundation
@testable import LatchkeyService
import LatchkeyStore
import Testing
import WebAuthn

/// The event feed, the webhook deliveries and the statistics a backend and the console read, on the service.
@Suite("Event log and statistics")
struct EventLogAndStatisticsTests {
    @Test func theFeedFiltersByUserTypeAndTimeAndRefusesWhatItCannotRead() async throws {
        let harness = try ServiceHarness()
        let uma = try await harness.register("uma")
        _ = try await harness.register("vic", on: try harness.anotherAuthenticator())
        let log = harness.service.eventLog
        let umas = try await log.events(SecurityEventQuery(), filteredBy: EventFilter(user: "UMA"))
        #expect(!umas.isEmpty && umas.allSatisfy { $0.username == "uma" })
        let byHandle = try await log.events(SecurityEventQuery(), filteredBy: EventFilter(userHandle: Base64URL.encode(umas[0].userHandle ?? [])))
        #expect(byHandle.map(\.id) == umas.map(\.id))
        let registrations = try await log.events(SecurityEventQuery(), filteredBy: EventFilter(types: "passkey.registered"))
        #expect(Set(registrations.compactMap(\.username)) == ["uma", "vic"])
        #expect(registrations.first { $0.username == "uma" }?.credentialID == uma.credentialID)
        #expect(try await log.events(SecurityEventQuery(), filteredBy: EventFilter(since: "2999-01-01T00:00:00Z")).isEmpty)

        let refusals: [(EventFilter, ServiceError.Code)] = [
            (EventFilter(user: "uma", userHandle: "AAAA"), .invalidInput),
            (EventFilter(user: "nobody"), .notFound),
            (EventFilter(userHandle: "not base64url!"), .invalidInput),
            (EventFilter(types: "sign_in.succeeded,no.such"), .invalidInput),
            (EventFilter(since: "2026-02-30T00:00:00Z"), .invalidInput),
        ]
        for (filter, code) in refusals {
            let refusal = await #expect(throws: ServiceError.self) { try await log.events(SecurityEventQuery(), filteredBy: filter) }
            #expect(refusal?.code == code)
        }
    }

    @Test func theFeedPagesNewestFirst() async throws {
        let harness = try ServiceHarness()
        for name in ["wes", "xia", "yan"] { _ = try await harness.register(name, on: try harness.anotherAuthenticator()) }
        let log = harness.service.eventLog
        let all = try await log.events(SecurityEventQuery(limit: 50))
        #expect(all.map(\.sequence) == all.map(\.sequence).sorted(by: >), "newest first")
        let first = try await log.events(SecurityEventQuery(limit: 2))
        let next = try await log.events(SecurityEventQuery(before: first.last?.sequence, limit: 50))
        #expect((first + next).map(\.id) == all.map(\.id))
    }

    @Test func anUnknownDeliveryIsNotRetriedAndNoneIsListedWithoutReceivers() async throws {
        let harness = try ServiceHarness()
        _ = try await harness.register("zed")
        let log = harness.service.eventLog
        #expect(try await log.deliveries(state: nil, before: nil, limit: 50).isEmpty, "no receiver, no delivery")
        for id in [nil, Int64(404)] {
            let refusal = await #expect(throws: ServiceError.self) { try await log.retry(delivery: id, caller: harness.caller()) }
            #expect(refusal?.code == .notFound)
        }
    }

    @Test func theOverviewCountsTodaysCeremoniesAndRefusesABadRange() async throws {
        let harness = try ServiceHarness()
        _ = try await harness.register("amy")
        _ = try await harness.register("ben", on: try harness.anotherAuthenticator())
        _ = try await harness.service.signIn.finish(
            try harness.answer(try await harness.signInOptions().options), caller: harness.caller(), presented: .none)
        let overview = try await harness.service.statistics.overview(from: nil, to: nil)
        let today = try #require(overview.days.last)
        #expect(today.registrations == 2 && today.users == 2 && today.usersWithPasskey == 2)
        #expect(today.signIns.succeeded == 1 && today.signIns.usernameless == 1, "the usernameless sign-in counted by its fact")
        #expect(overview.totals.registrations == 2)
        for (from, to) in [("2026-13-01", nil), ("2026-12-07", "2026-12-01")] as [(String?, String?)] {
            let refusal = await #expect(throws: ServiceError.self) { try await harness.service.statistics.overview(from: from, to: to) }
            #expect(refusal?.code == .invalidInput, "\(from ?? "") \(to ?? "")")
        }
    }
}
