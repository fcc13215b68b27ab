import Foundation
import LatchkeyStore
import Testing
import WebAuthn

/// The contract for the statistics: every event's counts land in its day's rows in its own transaction, they
/// match what the events say after any mix of changes, two instances writing at once lose nothing, and a rebuild
/// from the events gives the rows live writes gave.
extension StoreContractTests {
    /// Random choices from a seed, so a failing mix can be replayed: SHA-256 of the seed and a counter.
    struct SeededGenerator: RandomNumberGenerator {
        let seed: UInt64
        private var counter: UInt64 = 0

        init(seed: UInt64) {
            self.seed = seed
        }

        mutating func next() -> UInt64 {
            counter += 1
            let digest = Digest.sha256(withUnsafeBytes(of: (seed.bigEndian, counter.bigEndian)) { Array($0) })
            return digest.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
        }
    }

    /// The world as the test drives it: users and their passkeys with counters.
    private struct Model {
        var users: [[UInt8]: UserRecord] = [:]
        var passkeys: [[UInt8]: [CredentialRecord]] = [:]
        var nextTag = 0

        mutating func tag() -> Int {
            nextTag += 1
            return nextTag
        }
    }

    private static let providers: [String?] = ["iCloud Keychain", "Google Password Manager", "1Password", "Passkey", nil]
    private static let reasons = ["userNotVerified", "signatureInvalid", "accountDisabled"]

    private static func statisticsEvent(
        _ type: SecurityEventType, _ tag: Int, user: UserRecord, day: Int, detail: String? = nil, reason: String? = nil,
        credential: CredentialRecord? = nil, provider: String? = nil
    ) -> SecurityEvent {
        SecurityEvent(
            id: "evt_stats_\(tag)", type: type, occurredAt: Fixtures.now.addingTimeInterval(TimeInterval(day) * 86_400 + TimeInterval(tag)),
            userHandle: user.handle, username: user.username, credentialID: credential?.id, aaguid: credential?.aaguid,
            authenticatorName: provider, actor: .user, detail: detail, reason: reason, backupEligible: credential?.backupEligible)
    }

    /// Drives `operations` random changes over `days` days through `store`'s ceremony and management calls.
    private static func randomMix(
        _ store: any LatchkeyStore, operations: Int, days: Int, seed: UInt64, firstTag: Int = 0
    ) async throws -> Model {
        var random = SeededGenerator(seed: seed)
        var model = Model(nextTag: firstTag)
        for operation in 0..<operations {
            // Time moves on, as it does for a server: a user's later sign-in is never on an earlier day.
            let day = operation * days / operations
            let users = model.users.values.sorted { $0.handle.lexicographicallyPrecedes($1.handle) }
            let choice = users.isEmpty ? 0 : Int.random(in: 0..<10, using: &random)
            switch choice {
            case 0, 1:
                // A new user with a first passkey.
                let tag = model.tag()
                let user = UserRecord(
                    handle: Fixtures.bytes(index: 10_000 + tag), username: "user\(tag)", displayName: "User \(tag)", createdAt: Fixtures.now)
                var passkey = Fixtures.credential(Fixtures.bytes(index: tag), of: user)
                passkey.backupEligible = Bool.random(using: &random)
                let provider = providers.randomElement(using: &random) ?? nil
                try await store.register(NewRegistration(credential: passkey, newUser: user, events: [
                    statisticsEvent(.userCreated, tag, user: user, day: day),
                    statisticsEvent(.passkeyRegistered, model.tag(), user: user, day: day, credential: passkey, provider: provider),
                ]))
                model.users[user.handle] = user
                model.passkeys[user.handle] = [passkey]
            case 2:
                // Another passkey for someone.
                guard let user = users.randomElement(using: &random) else { continue }
                let tag = model.tag()
                var passkey = Fixtures.credential(Fixtures.bytes(index: tag), of: user)
                passkey.backupEligible = Bool.random(using: &random)
                try await store.register(NewRegistration(credential: passkey, newUser: nil, events: [
                    statisticsEvent(.passkeyRegistered, tag, user: user, day: day, credential: passkey,
                                    provider: providers.randomElement(using: &random) ?? nil),
                ]))
                model.passkeys[user.handle, default: []].append(passkey)
            case 3, 4, 5:
                // A sign-in, named or not.
                guard let user = users.randomElement(using: &random), var passkeys = model.passkeys[user.handle], !passkeys.isEmpty
                else { continue }
                let index = Int.random(in: 0..<passkeys.count, using: &random)
                let passkey = passkeys[index]
                let tag = model.tag()
                var signIn = Fixtures.signIn(
                    passkey, from: passkey.signCount, to: passkey.signCount + 1, session: Fixtures.session(Fixtures.bytes(index: 50_000 + tag), of: user))
                signIn.events = [statisticsEvent(
                    .signInSucceeded, tag, user: user, day: day, detail: Bool.random(using: &random) ? "usernameless" : nil,
                    credential: passkey, provider: "iCloud Keychain")]
                #expect(try await store.recordAnswered(signIn) == .recorded)
                passkeys[index].signCount += 1
                model.passkeys[user.handle] = passkeys
            case 6:
                // A refused sign-in.
                guard let user = users.randomElement(using: &random) else { continue }
                try await store.recordEvent(
                    statisticsEvent(.signInRefused, model.tag(), user: user, day: day, reason: reasons.randomElement(using: &random)),
                    whileItsUserExists: true)
            case 7:
                // A passkey removed, even the last.
                guard let user = users.randomElement(using: &random), var passkeys = model.passkeys[user.handle], !passkeys.isEmpty
                else { continue }
                let passkey = passkeys.remove(at: Int.random(in: 0..<passkeys.count, using: &random))
                #expect(try await store.deleteCredentialEvenIfLast(
                    id: passkey.id, ownedBy: user.handle,
                    recording: [statisticsEvent(.passkeyRemoved, model.tag(), user: user, day: day, credential: passkey)]))
                model.passkeys[user.handle] = passkeys
            case 8:
                // An account deleted.
                guard let user = users.randomElement(using: &random) else { continue }
                _ = try await store.deleteUser(
                    handle: user.handle, recording: [statisticsEvent(.accountDeleted, model.tag(), user: user, day: day)])
                model.users[user.handle] = nil
                model.passkeys[user.handle] = nil
            default:
                // A ticket issued, and a device key enrolled with App Attest or without.
                guard let user = users.randomElement(using: &random) else { continue }
                try await store.recordEvent(statisticsEvent(.enrollmentTicketIssued, model.tag(), user: user, day: day))
                try await store.recordEvent(statisticsEvent(
                    .deviceKeyEnrolled, model.tag(), user: user, day: day, detail: Bool.random(using: &random) ? "app attested" : nil))
            }
        }
        return model
    }

    /// Every event the store holds, oldest first.
    private static func allEvents(_ store: any LatchkeyStore) async throws -> [SecurityEvent] {
        var events: [SecurityEvent] = []
        var before: Int64?
        while true {
            let page = try await store.securityEvents(SecurityEventQuery(before: before, limit: 200))
            events += page
            guard page.count == 200, let last = page.last else { break }
            before = last.sequence
        }
        return events.reversed()
    }

    /// What the events say, counted here without the store's rules: per day, metric and dimension.
    private static func expectedRows(from events: [SecurityEvent]) -> [String: Int64] {
        var rows: [String: Int64] = [:]
        func add(_ day: StatisticsDay, _ metric: String, _ dimension: String = "", _ amount: Int64 = 1) {
            rows["\(day) \(metric) \(dimension)", default: 0] += amount
        }
        var activeOn: Set<String> = []
        for event in events {
            let day = StatisticsDay(event.occurredAt)
            switch event.type {
            case .signInSucceeded:
                add(day, "sign_ins.succeeded")
                if event.detail == "usernameless" { add(day, "sign_ins.usernameless") }
                if activeOn.insert("\(day) \(event.userHandle ?? [])").inserted { add(day, "users.active") }
            case .signInRefused: add(day, "sign_ins.refused", event.reason ?? "unknown")
            case .passkeyRegistered:
                let named = event.authenticatorName.flatMap { $0 == "Passkey" ? nil : $0 }
                add(day, "registrations", named ?? "unknown")
                add(day, "registrations.backup", event.backupEligible.map { $0 ? "synced" : "device-bound" } ?? "unknown")
            case .passkeyRemoved: add(day, "passkeys.removed")
            case .userCreated: add(day, "users")
            case .accountDeleted: add(day, "users", "", -1)
            case .enrollmentTicketIssued: add(day, "tickets.issued")
            case .deviceKeyEnrolled:
                add(day, "device_keys.enrolled")
                if event.detail == "app attested" { add(day, "device_keys.app_attested") }
            default: break
            }
        }
        return rows.filter { $0.value != 0 }
    }

    private static func storedRows(_ report: StatisticsReport, without metrics: Set<StatisticsMetric>) -> [String: Int64] {
        var rows: [String: Int64] = [:]
        for row in report.rows where !metrics.contains(row.metric) {
            rows["\(row.day) \(row.metric.rawValue) \(row.dimension)", default: 0] += row.count
        }
        return rows
    }

    private static let wholeRange = (from: StatisticsDay(Fixtures.now).adding(days: -1), through: StatisticsDay(Fixtures.now).adding(days: 40))

    @Test(arguments: StoreBackend.all)
    func statisticsMatchTheEventsAfterARandomMix(backend: StoreBackend) async throws {
        let store = try await backend.makeWithOutbox(WebhookOutbox(receivers: Self.receivers))
        let model = try await Self.randomMix(store, operations: 300, days: 20, seed: 39)
        let events = try await Self.allEvents(store)
        #expect(events.count > 300, "the mix writes more events than operations")

        let report = try await store.statistics(from: Self.wholeRange.from, through: Self.wholeRange.through)
        let derived: Set<StatisticsMetric> = [.usersWithPasskey]
        let stored = Self.storedRows(report, without: derived), expected = Self.expectedRows(from: events)
        for key in Set(stored.keys).union(expected.keys).sorted() where stored[key] != expected[key] {
            Issue.record("\(key): stored \(stored[key] ?? 0), the events say \(expected[key] ?? 0)")
        }
        #expect(!stored.isEmpty)
        #expect(report.totalsBefore == [.users: 0, .usersWithPasskey: 0])
        let holders = report.rows.filter { $0.metric == .usersWithPasskey }.reduce(0) { $0 + $1.count }
        #expect(holders == Int64(model.passkeys.values.filter { !$0.isEmpty }.count), "users holding a passkey at the end")
        let users = report.rows.filter { $0.metric == .users }.reduce(0) { $0 + $1.count }
        #expect(users == Int64(model.users.count))

        // A range in the middle carries the running totals of the days before it.
        let middle = StatisticsDay(Fixtures.now).adding(days: 10)
        let later = try await store.statistics(from: middle, through: Self.wholeRange.through)
        let before = report.rows.filter { $0.metric == .users && $0.day < middle }.reduce(0) { $0 + $1.count }
        #expect(later.totalsBefore[.users] == before)
        #expect(later.rows == report.rows.filter { $0.day >= middle })
    }

    @Test(arguments: StoreBackend.all)
    func aRebuildFromTheEventsGivesTheRowsLiveWritesGave(backend: StoreBackend) async throws {
        let store = try await backend.makeWithOutbox(WebhookOutbox(receivers: Self.receivers))
        _ = try await Self.randomMix(store, operations: 200, days: 12, seed: 7)
        // Webhook outcomes, which no event records: the rebuild keeps them.
        let now = Fixtures.now.addingTimeInterval(30 * 86_400)
        let claimed = try await store.claimWebhookDeliveries(owner: "one", now: now, leaseUntil: now.addingTimeInterval(30), limit: 6, receivers: .all)
        for (index, claim) in claimed.enumerated() {
            let outcome: WebhookAttemptOutcome = index % 3 == 0 ? .dead(error: "HTTP 500") : index % 3 == 1 ? .delivered : .retry(at: now, error: "HTTP 502")
            #expect(try await store.finishWebhookDelivery(id: claim.delivery.id, owner: "one", outcome: outcome, now: now))
        }
        let live = try await store.statistics(from: Self.wholeRange.from, through: Self.wholeRange.through)
        #expect(live.rows.contains { $0.metric == .webhooksDelivered && $0.count == 2 && $0.day == StatisticsDay(now) })
        #expect(live.rows.contains { $0.metric == .webhooksDead && $0.count == 2 })

        let rebuilt = try await store.rebuildStatistics()
        #expect(rebuilt.events == (try await Self.allEvents(store)).count)
        #expect(rebuilt.usersCorrection == 0 && rebuilt.usersWithPasskeyCorrection == 0)
        #expect(try await store.statistics(from: Self.wholeRange.from, through: Self.wholeRange.through) == live)

        // Live writes after a rebuild go on from the state it left: a holder's last passkey removed still counts.
        _ = try await Self.randomMix(store, operations: 100, days: 12, seed: 8, firstTag: 5_000)
        let after = try await store.statistics(from: Self.wholeRange.from, through: Self.wholeRange.through)
        _ = try await store.rebuildStatistics()
        #expect(try await store.statistics(from: Self.wholeRange.from, through: Self.wholeRange.through) == after)
    }

    @Test(arguments: StoreBackend.all)
    func aRebuildAfterEventsArePurgedKeepsTheDaysBefore(backend: StoreBackend) async throws {
        let store = try await backend.make()
        _ = try await Self.randomMix(store, operations: 200, days: 12, seed: 11)
        let live = try await store.statistics(from: Self.wholeRange.from, through: Self.wholeRange.through)
        // The events of the first five and a half days are gone; their rows stay, and so do the sixth day's, which the
        // remaining events cover only in part. Who held how many passkeys at the cut is not in the events, so the
        // later days' changes in holders are what the remaining events say, and the total is corrected to the store's.
        let cutoff = Fixtures.now.addingTimeInterval(5.5 * 86_400)
        try await store.purgeSecurityEvents(eventsBefore: cutoff, deliveriesBefore: cutoff)
        let remaining = try await Self.allEvents(store)
        #expect(!remaining.isEmpty && remaining.allSatisfy { $0.occurredAt >= cutoff })
        let rebuilt = try await store.rebuildStatistics()
        #expect(rebuilt.events == remaining.count)
        #expect(rebuilt.usersCorrection == 0)
        let after = try await store.statistics(from: Self.wholeRange.from, through: Self.wholeRange.through)
        #expect(after.rows.filter { $0.metric != .usersWithPasskey } == live.rows.filter { $0.metric != .usersWithPasskey })
        func holders(_ report: StatisticsReport) -> Int64 { report.rows.filter { $0.metric == .usersWithPasskey }.reduce(0) { $0 + $1.count } }
        #expect(holders(after) == holders(live))
        let sixthDay = StatisticsDay(cutoff)
        #expect(after.rows.filter { $0.day < sixthDay } == live.rows.filter { $0.day < sixthDay }, "the days before are kept as they were")
    }

    @Test(arguments: StoreBackend.all)
    func aRebuildWhileAnotherInstanceSignsInLosesNoCount(backend: StoreBackend) async throws {
        let (one, two) = try await backend.makePair(.none)
        _ = try await Self.randomMix(one, operations: 150, days: 1, seed: 21)
        let people = (0..<4).map { Fixtures.user("runner\($0)", handle: UInt8(200 + $0)) }
        for (index, person) in people.enumerated() {
            try await two.registerNew(person, with: Fixtures.credential(UInt8(220 + index), of: person))
        }
        let rounds = 10
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for _ in 0..<3 { _ = try await one.rebuildStatistics() }
            }
            for (index, person) in people.enumerated() {
                group.addTask {
                    for round in 0..<rounds {
                        let passkey = Fixtures.credential(UInt8(220 + index), of: person)
                        var signIn = Fixtures.signIn(
                            passkey, from: UInt32(round), to: UInt32(round + 1),
                            session: Fixtures.session(Fixtures.bytes(index: 7_000 + 100 * index + round), of: person))
                        signIn.events = [Self.statisticsEvent(.signInSucceeded, 9_000 + 100 * index + round, user: person, day: 0, credential: passkey)]
                        // A write that waited too long for the rebuild is refused as busy; the rest must all count.
                        do {
                            _ = try await two.recordAnswered(signIn)
                        } catch let error as StoreError where error.code == .busy || error.code == .unavailable {
                            continue
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let events = try await Self.allEvents(two)
        let report = try await two.statistics(from: Self.wholeRange.from, through: Self.wholeRange.through)
        let stored = Self.storedRows(report, without: [.usersWithPasskey, .users])
        let expected = Self.expectedRows(from: events).filter { !$0.key.contains(" users ") }
        #expect(expected.keys.contains { $0.contains("sign_ins.succeeded") }, "the runners' sign-ins were written")
        #expect(stored == expected)
    }

    @Test(arguments: StoreBackend.all)
    func aRebuildCorrectsTheTotalsWhenEventsArePurged(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = Fixtures.user("alice", handle: 1), bob = Fixtures.user("bob", handle: 2)
        // Alice's history predates the events kept; Bob's is whole.
        try await store.registerNew(alice, with: Fixtures.credential(1, of: alice))
        try await store.register(NewRegistration(credential: Fixtures.credential(2, of: bob), newUser: bob, events: [
            Self.statisticsEvent(.userCreated, 1, user: bob, day: 3),
            Self.statisticsEvent(.passkeyRegistered, 2, user: bob, day: 3, credential: Fixtures.credential(2, of: bob)),
        ]))
        let rebuilt = try await store.rebuildStatistics()
        #expect(rebuilt.events == 2)
        #expect(rebuilt.usersCorrection == 1 && rebuilt.usersWithPasskeyCorrection == 1)
        let report = try await store.statistics(from: Self.wholeRange.from, through: Self.wholeRange.through)
        #expect(report.rows.filter { $0.metric == .users }.reduce(0) { $0 + $1.count } == 2)
        #expect(report.rows.filter { $0.metric == .usersWithPasskey }.reduce(0) { $0 + $1.count } == 2)
        // Alice's state is her stored passkeys: removing her only one makes one holder fewer.
        #expect(try await store.deleteCredentialEvenIfLast(
            id: Fixtures.credential(1, of: alice).id, ownedBy: alice.handle,
            recording: [Self.statisticsEvent(.passkeyRemoved, 3, user: alice, day: 4)]))
        let after = try await store.statistics(from: Self.wholeRange.from, through: Self.wholeRange.through)
        #expect(after.rows.filter { $0.metric == .usersWithPasskey }.reduce(0) { $0 + $1.count } == 1)
    }

    @Test(arguments: StoreBackend.all)
    func twoInstancesSigningInAtOnceLoseNoCount(backend: StoreBackend) async throws {
        let (one, two) = try await backend.makePair(WebhookOutbox(receivers: Self.receivers))
        let people = (0..<6).map { Fixtures.user("person\($0)", handle: UInt8(20 + $0)) }
        for (index, person) in people.enumerated() {
            try await one.registerNew(person, with: Fixtures.credential(UInt8(60 + index), of: person))
        }
        let rounds = 8
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, person) in people.enumerated() {
                let store = index % 2 == 0 ? one : two
                group.addTask {
                    for round in 0..<rounds {
                        let passkey = Fixtures.credential(UInt8(60 + index), of: person)
                        var signIn = Fixtures.signIn(
                            passkey, from: UInt32(round), to: UInt32(round + 1),
                            session: Fixtures.session(Fixtures.bytes(index: 1_000 * (index + 1) + round), of: person))
                        signIn.events = [Self.statisticsEvent(
                            .signInSucceeded, 100 * (index + 1) + round, user: person, day: round < rounds / 2 ? 0 : 1, detail: "usernameless",
                            credential: passkey)]
                        let recorded = try await store.recordAnswered(signIn)
                        #expect(recorded == .recorded)
                    }
                }
            }
            try await group.waitForAll()
        }
        let report = try await two.statistics(from: Self.wholeRange.from, through: Self.wholeRange.through)
        let first = StatisticsDay(Fixtures.now), second = first.adding(days: 1)
        for day in [first, second] {
            let rows = report.rows.filter { $0.day == day }
            #expect(rows.first { $0.metric == .signInsSucceeded }?.count == Int64(people.count * rounds / 2))
            #expect(rows.first { $0.metric == .usernamelessSignIns }?.count == Int64(people.count * rounds / 2))
            #expect(rows.first { $0.metric == .activeUsers }?.count == Int64(people.count), "each person once a day")
        }
    }
}
