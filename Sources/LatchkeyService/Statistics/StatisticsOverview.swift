import Foundation
import LatchkeyStore

/// One day of a tenant's statistics, every member present (zeros included): what `GET /admin/v1/stats` lists and
/// the console draws.
package struct DailyStatistics: Encodable, Sendable, Equatable {
    package struct SignIns: Encodable, Sendable, Equatable {
        package var succeeded: Int64 = 0
        /// Sign-ins of known users that a check refused (unknown passkeys leave no event, so are not here).
        package var refused: Int64 = 0
        /// By the refusing check's code (`userNotVerified`, `accountDisabled`, …).
        package var refusedByReason: [String: Int64] = [:]
        /// Succeeded sign-ins that named no user.
        package var usernameless: Int64 = 0
        /// Succeeded sign-ins with a device key.
        package var deviceKey: Int64 = 0
    }

    package struct Backup: Encodable, Sendable, Equatable {
        package var synced: Int64 = 0
        package var deviceBound: Int64 = 0
        /// Recorded before events said (registrations a rebuild counted from events older than 0.9).
        package var unknown: Int64 = 0
    }

    package struct DeviceKeys: Encodable, Sendable, Equatable {
        package var enrolled: Int64 = 0
        /// Of those enrolled, with an App Attest attestation.
        package var appAttested: Int64 = 0
        package var removed: Int64 = 0
    }

    package struct Tickets: Encodable, Sendable, Equatable {
        package var issued: Int64 = 0
        package var spent: Int64 = 0
    }

    package struct Webhooks: Encodable, Sendable, Equatable {
        package var delivered: Int64 = 0
        package var dead: Int64 = 0
    }

    /// `YYYY-MM-DD`, UTC.
    package var date: String
    package var signIns = SignIns()
    /// Passkeys registered.
    package var registrations: Int64 = 0
    /// By provider name (`unknown` for a model with none).
    package var registrationsByProvider: [String: Int64] = [:]
    package var registrationsByBackup = Backup()
    package var passkeysRemoved: Int64 = 0
    /// Distinct users who signed in.
    package var activeUsers: Int64 = 0
    /// Users at the end of the day.
    package var users: Int64 = 0
    /// Users holding at least one passkey at the end of the day.
    package var usersWithPasskey: Int64 = 0
    package var deviceKeys = DeviceKeys()
    package var tickets = Tickets()
    package var webhooks = Webhooks()
    /// Sign-ins through the OpenID provider, by client ID.
    package var openIDSignInsByClient: [String: Int64] = [:]

    package init(date: String) {
        self.date = date
    }

    /// Adds one stored row (a running total's change moves the totals; the caller carries them over).
    mutating func add(_ row: StatisticsRow) {
        switch row.metric {
        case .signInsSucceeded: signIns.succeeded += row.count
        case .signInsRefused:
            signIns.refused += row.count
            signIns.refusedByReason[row.dimension, default: 0] += row.count
        case .usernamelessSignIns: signIns.usernameless += row.count
        case .deviceKeySignIns: signIns.deviceKey += row.count
        case .registrations:
            registrations += row.count
            registrationsByProvider[row.dimension, default: 0] += row.count
        case .registrationsByBackup:
            switch row.dimension {
            case StatisticsCount.synced: registrationsByBackup.synced += row.count
            case StatisticsCount.deviceBound: registrationsByBackup.deviceBound += row.count
            default: registrationsByBackup.unknown += row.count
            }
        case .passkeysRemoved: passkeysRemoved += row.count
        case .deviceKeysEnrolled: deviceKeys.enrolled += row.count
        case .appAttestedDeviceKeys: deviceKeys.appAttested += row.count
        case .deviceKeysRemoved: deviceKeys.removed += row.count
        case .activeUsers: activeUsers += row.count
        case .users: users += row.count
        case .usersWithPasskey: usersWithPasskey += row.count
        case .ticketsIssued: tickets.issued += row.count
        case .ticketsSpent: tickets.spent += row.count
        case .webhooksDelivered: webhooks.delivered += row.count
        case .webhooksDead: webhooks.dead += row.count
        case .openIDSignIns: openIDSignInsByClient[row.dimension, default: 0] += row.count
        }
    }
}

/// A range's totals: the days' counts summed, the running totals as of its last day, and active users as the
/// busiest day's (distinct users over a range are not kept).
package struct StatisticsTotals: Encodable, Sendable, Equatable {
    package var signIns = DailyStatistics.SignIns()
    package var registrations: Int64 = 0
    package var registrationsByProvider: [String: Int64] = [:]
    package var registrationsByBackup = DailyStatistics.Backup()
    package var passkeysRemoved: Int64 = 0
    /// The most distinct users who signed in on one day of the range.
    package var peakActiveUsers: Int64 = 0
    package var users: Int64 = 0
    package var usersWithPasskey: Int64 = 0
    package var deviceKeys = DailyStatistics.DeviceKeys()
    package var tickets = DailyStatistics.Tickets()
    package var webhooks = DailyStatistics.Webhooks()
    package var openIDSignInsByClient: [String: Int64] = [:]

    /// The counts of `rows` (the range's) summed as one day's, with the running totals and the busiest day of `days`.
    init(_ rows: [StatisticsRow], days: [DailyStatistics], totalsBefore: [StatisticsMetric: Int64]) {
        var sum = DailyStatistics(date: "")
        for row in rows where !row.metric.isRunningTotal { sum.add(row) }
        signIns = sum.signIns
        registrations = sum.registrations
        registrationsByProvider = sum.registrationsByProvider
        registrationsByBackup = sum.registrationsByBackup
        passkeysRemoved = sum.passkeysRemoved
        peakActiveUsers = days.map(\.activeUsers).max() ?? 0
        users = days.last?.users ?? totalsBefore[.users] ?? 0
        usersWithPasskey = days.last?.usersWithPasskey ?? totalsBefore[.usersWithPasskey] ?? 0
        deviceKeys = sum.deviceKeys
        tickets = sum.tickets
        webhooks = sum.webhooks
        openIDSignInsByClient = sum.openIDSignInsByClient
    }
}

/// A range of days, checked: `from` through `to`, at most ``maximumDays``.
package struct StatisticsRange: Sendable, Equatable {
    package var from: StatisticsDay
    package var to: StatisticsDay

    /// The longest range one request reads: two years.
    package static let maximumDays = 731
    /// The range when none is given: the last 30 days, today included.
    package static let defaultDays = 30

    /// Reads `from` and `to` (`YYYY-MM-DD`); either may be left out: `to` is then today, `from` 29 days before `to`.
    package init(from fromText: String?, to toText: String?, today: StatisticsDay = StatisticsDay(Date())) throws {
        func day(_ text: String?, _ name: String) throws -> StatisticsDay? {
            guard let text, !text.isEmpty else { return nil }
            guard let day = StatisticsDay(text) else {
                throw ServiceError.invalid("\(name) \(text.debugDescription) is not a day as YYYY-MM-DD, such as 2026-12-01")
            }
            return day
        }
        let to = try day(toText, "to") ?? today
        let from = try day(fromText, "from") ?? to.adding(days: -(Self.defaultDays - 1))
        guard from <= to else { throw ServiceError.invalid("from (\(from)) is after to (\(to))") }
        guard to.ordinal - from.ordinal < Self.maximumDays else {
            throw ServiceError.invalid("the range \(from) to \(to) is longer than \(Self.maximumDays) days; ask for less at a time")
        }
        self.from = from
        self.to = to
    }
}

/// How the webhook outbox stands now.
package struct OutboxHealth: Encodable, Sendable, Equatable {
    package var pending: Int
    /// RFC 3339, or absent when nothing is pending.
    package var oldestPendingAt: String?
    /// Seconds the oldest pending delivery has waited.
    package var oldestPendingSeconds: Int?
}

/// A tenant's statistics over a range: every day (zeros included), the totals, and the outbox now.
package struct StatisticsOverview: Sendable, Equatable {
    package var from: StatisticsDay
    package var to: StatisticsDay
    package var days: [DailyStatistics]
    package var totals: StatisticsTotals
    package var outbox: OutboxHealth

    /// Lays `report`'s rows out over every day of `range`, carrying the running totals from the days before.
    package init(_ report: StatisticsReport, range: StatisticsRange, outbox: WebhookOutboxStatus, now: Date = Date()) {
        var byDay: [StatisticsDay: [StatisticsRow]] = [:]
        for row in report.rows { byDay[row.day, default: []].append(row) }
        var users = report.totalsBefore[.users] ?? 0, holders = report.totalsBefore[.usersWithPasskey] ?? 0
        var days: [DailyStatistics] = []
        days.reserveCapacity(range.to.ordinal - range.from.ordinal + 1)
        for ordinal in range.from.ordinal...range.to.ordinal {
            let day = StatisticsDay(ordinal: ordinal)
            var statistics = DailyStatistics(date: day.description)
            for row in byDay[day] ?? [] { statistics.add(row) }
            users += statistics.users
            holders += statistics.usersWithPasskey
            statistics.users = users
            statistics.usersWithPasskey = holders
            days.append(statistics)
        }
        from = range.from
        to = range.to
        self.days = days
        totals = StatisticsTotals(report.rows, days: days, totalsBefore: report.totalsBefore)
        self.outbox = OutboxHealth(
            pending: outbox.depth, oldestPendingAt: outbox.oldestPendingAt.map(RFC3339.string),
            oldestPendingSeconds: outbox.oldestPendingAt.map { max(0, Int(now.timeIntervalSince($0))) })
    }
}

/// The statistics, read by backends and the console.
package struct StatisticsReader: Sendable {
    let service: RelyingPartyService

    /// The statistics of the days `from` through `to` (`YYYY-MM-DD`; see ``StatisticsRange``).
    package func overview(from: String?, to: String?) async throws -> StatisticsOverview {
        let range = try StatisticsRange(from: from, to: to)
        async let report = service.store.statistics(from: range.from, through: range.to)
        async let outbox = service.store.webhookOutboxStatus()
        return StatisticsOverview(try await report, range: range, outbox: try await outbox)
    }
}
