import Foundation
import HTTPTypes
import LatchkeyStore
import Testing

/// `GET /admin/v1/stats` over real ceremonies: a registration counts as a registration (not a sign-in), sign-ins
/// and refusals land on today with their reasons, every day of the range is listed, and bad ranges are 400.
@Suite struct StatisticsRouteTests {
    private static func today() -> String { StatisticsDay(Date()).description }

    @Test func ceremoniesLandInTodaysRow() async throws {
        let (harness, key) = try await AdminRouteTests.harness()
        try await harness.run { client in
            let alice = TestAuthenticator(), bob = TestAuthenticator()
            #expect(try await client.register("alice", with: alice).isOK)
            #expect(try await client.register("bob", with: bob).isOK)
            #expect(try await client.signIn("alice", with: alice).isOK)
            #expect(try await client.signIn(nil, with: alice).isOK)
            #expect(try await client.signIn(nil, with: bob).isOK)
            // A refusal after a valid signature: the account is disabled.
            _ = try await client.send(.patch, "/admin/v1/users/bob", json: ["disabled": true], headers: AdminRouteTests.admin(key))
            #expect(try await client.signIn("bob", with: bob).status == .forbidden)

            let from = StatisticsDay(Date()).adding(days: -6).description
            let reply = try await client.send(.get, "/admin/v1/stats?from=\(from)&to=\(Self.today())", headers: AdminRouteTests.admin(key))
            #expect(reply.isOK, "\(reply.text)")
            let days = try #require(reply.json["days"] as? [[String: Any]])
            #expect(days.count == 7, "every day of the range, zeros included")
            #expect(days.first?["date"] as? String == from)
            let today = try #require(days.last)
            #expect(today["date"] as? String == Self.today())
            let signIns = try #require(today["signIns"] as? [String: Any])
            #expect(signIns["succeeded"] as? Int == 3, "registrations are not sign-ins: \(signIns)")
            #expect(signIns["usernameless"] as? Int == 2)
            #expect(signIns["refused"] as? Int == 1)
            #expect(signIns["refusedByReason"] as? [String: Int] == ["accountDisabled": 1])
            #expect(today["registrations"] as? Int == 2)
            #expect(today["activeUsers"] as? Int == 2)
            #expect(today["users"] as? Int == 2)
            #expect(today["usersWithPasskey"] as? Int == 2)
            let providers = try #require(today["registrationsByProvider"] as? [String: Int])
            #expect(providers.values.reduce(0, +) == 2, "\(providers)")
            let quiet = try #require(days.first?["signIns"] as? [String: Any])
            #expect(quiet["succeeded"] as? Int == 0)
            #expect(days.first?["users"] as? Int == 0)
            let totals = try #require(reply.json["totals"] as? [String: Any])
            #expect((totals["signIns"] as? [String: Any])?["succeeded"] as? Int == 3)
            #expect(totals["peakActiveUsers"] as? Int == 2)
            #expect((reply.json["outbox"] as? [String: Any])?["pending"] as? Int == 0)

            // The refusal's reason code is in its event too.
            let events = try await client.send(.get, "/admin/v1/events?type=sign_in.refused", headers: AdminRouteTests.admin(key))
            #expect((events.json["events"] as? [[String: Any]])?.first?["reason"] as? String == "accountDisabled", "\(events.text)")
        }
    }

    @Test func badRangesAreRefusedNamingTheProblem() async throws {
        let (harness, key) = try await AdminRouteTests.harness()
        try await harness.run { client in
            let cases = [
                ("from=2026-02-30", "from \"2026-02-30\" is not a day"),
                ("to=yesterday", "to \"yesterday\" is not a day"),
                ("from=2026-12-02&to=2026-12-01", "is after to"),
                ("from=2020-01-01&to=2026-12-01", "longer than 731 days"),
            ]
            for (query, message) in cases {
                let reply = try await client.send(.get, "/admin/v1/stats?\(query)", headers: AdminRouteTests.admin(key))
                #expect(reply.status == .badRequest, "\(query): \(reply.text)")
                #expect((reply.json["errorMessage"] as? String)?.contains(message) == true, "\(query): \(reply.text)")
            }
            let defaults = try await client.send(.get, "/admin/v1/stats", headers: AdminRouteTests.admin(key))
            #expect((defaults.json["days"] as? [Any])?.count == 30)
            #expect(defaults.json["to"] as? String == Self.today())
            #expect(try await client.send(.get, "/admin/v1/stats").status == .unauthorized)
        }
    }

    @Test func daysReadAndWriteAsTheCalendarHasThem() throws {
        for text in ["1970-01-01", "2000-02-29", "2024-02-29", "2026-12-31", "2100-03-01", "1969-12-31"] {
            #expect(StatisticsDay(text)?.description == text)
        }
        for text in ["2023-02-29", "2100-02-29", "2026-13-01", "2026-00-10", "2026-1-01", "26-01-01", "2026-01-01T00", "", "２０２６-01-01"] {
            #expect(StatisticsDay(text) == nil, "\(text)")
        }
        #expect(StatisticsDay("1970-01-02")?.ordinal == 1)
        #expect(StatisticsDay(Date(timeIntervalSince1970: 86_399)).description == "1970-01-01")
        #expect(StatisticsDay(Date(timeIntervalSince1970: -1)).description == "1969-12-31")
        var day = try #require(StatisticsDay("1999-12-25"))
        for _ in 0..<20_000 {
            let next = day.adding(days: 1)
            #expect(StatisticsDay(next.description) == next)
            day = next
        }
    }
}
