import Foundation

/// A day in UTC, `YYYY-MM-DD`: the unit the statistics are kept in.
public struct StatisticsDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Days since 1970-01-01.
    public let ordinal: Int

    public init(ordinal: Int) {
        self.ordinal = ordinal
    }

    /// The UTC day `date` falls on.
    public init(_ date: Date) {
        ordinal = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
    }

    /// Reads `YYYY-MM-DD` (a real calendar day); nil otherwise.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year)
        else { return nil }
        ordinal = Self.ordinal(year: year, month: month, day: day)
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        let (year, month, day) = civil
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(year)
        return String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText + "-" + two(month) + "-" + two(day)
    }

    /// Its first instant.
    public var start: Date { Date(timeIntervalSince1970: TimeInterval(ordinal) * 86_400) }

    public func adding(days: Int) -> StatisticsDay { StatisticsDay(ordinal: ordinal + days) }

    public static func < (lhs: StatisticsDay, rhs: StatisticsDay) -> Bool { lhs.ordinal < rhs.ordinal }

    // The proleptic Gregorian calendar in days since 1970, by eras of 400 years.
    private static func ordinal(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private var civil: (year: Int, month: Int, day: Int) {
        let z = ordinal + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// What a statistics row counts. Each is kept per day (and tenant), some per a dimension (a refusal's reason, a
/// provider's name); the ``isRunningTotal`` ones are changes of a total (users, users with a passkey), summed from the
/// first day.
public enum StatisticsMetric: String, Sendable, CaseIterable, Codable {
    /// Sign-ins that succeeded, with a passkey or a device key.
    case signInsSucceeded = "sign_ins.succeeded"
    /// Sign-ins of known users refused by a check; the dimension is the check's reason code.
    case signInsRefused = "sign_ins.refused"
    /// Passkey sign-ins that named no user (discoverable credentials).
    case usernamelessSignIns = "sign_ins.usernameless"
    /// Sign-ins with an enrolled device key.
    case deviceKeySignIns = "sign_ins.device_key"
    /// Passkeys registered; the dimension is the provider's name, `unknown` when it has none.
    case registrations = "registrations"
    /// Passkeys registered; the dimension is ``StatisticsCount/synced``, ``StatisticsCount/deviceBound`` or, for an
    /// event from before events recorded it, ``StatisticsCount/unknownBackup``.
    case registrationsByBackup = "registrations.backup"
    case passkeysRemoved = "passkeys.removed"
    case deviceKeysEnrolled = "device_keys.enrolled"
    /// Device keys enrolled with an App Attest attestation.
    case appAttestedDeviceKeys = "device_keys.app_attested"
    case deviceKeysRemoved = "device_keys.removed"
    /// Distinct users who signed in that day.
    case activeUsers = "users.active"
    /// The change in how many users there are (created less deleted).
    case users = "users"
    /// The change in how many users have at least one passkey.
    case usersWithPasskey = "users.with_passkey"
    case ticketsIssued = "tickets.issued"
    case ticketsSpent = "tickets.spent"
    /// Webhook deliveries a receiver accepted, on the day it did.
    case webhooksDelivered = "webhooks.delivered"
    /// Webhook deliveries given up on, on the day the last attempt failed.
    case webhooksDead = "webhooks.dead"

    /// A change of a total rather than a count of the day's occurrences.
    public var isRunningTotal: Bool { self == .users || self == .usersWithPasskey }

    /// Counted from webhook attempts, not from events: a rebuild from the events keeps these rows.
    public var isFromOutbox: Bool { self == .webhooksDelivered || self == .webhooksDead }
}

/// One addition to a day's statistics row.
public struct StatisticsCount: Sendable, Hashable {
    public var metric: StatisticsMetric
    /// What the metric is broken down by (a reason, a provider); empty when it is not.
    public var dimension: String
    public var amount: Int64

    public init(_ metric: StatisticsMetric, _ dimension: String = "", amount: Int64 = 1) {
        self.metric = metric
        self.dimension = dimension
        self.amount = amount
    }

    /// The backup dimensions of ``StatisticsMetric/registrationsByBackup``: backup eligible (a synced, multi-device
    /// passkey) or not.
    public static let synced = "synced", deviceBound = "device-bound", unknownBackup = "unknown"
    /// The provider of a passkey whose model has no name.
    public static let unknownProvider = "unknown"
    /// The reason of a refusal recorded without one.
    public static let unknownReason = "unknown"
    /// The longest dimension kept; longer ones are cut.
    public static let maximumDimensionLength = 100
}

/// What one user's history changes in the totals that need to know that user's state: whether they already signed
/// in that day, how many passkeys they hold.
public enum UserStatisticsChange: Sendable, Equatable {
    /// Signed in: counts as active once a day.
    case signedIn
    case passkeyAdded
    case passkeyRemoved
    /// The account is gone, with its passkeys.
    case deleted
}

/// What one security event adds to the statistics: counts of its own, and a change of its user's state (from which
/// the store derives ``StatisticsMetric/activeUsers`` and ``StatisticsMetric/usersWithPasskey``). The same for a
/// live write and a rebuild from the events, so the two give the same rows.
public struct EventStatistics: Sendable, Equatable {
    public var day: StatisticsDay
    public var counts: [StatisticsCount]
    public var userChange: (handle: [UInt8], change: UserStatisticsChange)?

    /// The event details that mark a kind of sign-in or enrollment (as the service writes them).
    public static let usernamelessDetail = "usernameless", deviceKeyDetail = "device key", appAttestedDetail = "app attested"
    /// The name a passkey of an unnamed model is given, counted as an unknown provider.
    public static let genericAuthenticatorName = "Passkey"

    public init(of event: SecurityEvent) {
        day = StatisticsDay(event.occurredAt)
        counts = []
        userChange = nil
        let handle = event.userHandle
        switch event.type {
        case .signInSucceeded:
            counts.append(StatisticsCount(.signInsSucceeded))
            if event.detail == Self.deviceKeyDetail { counts.append(StatisticsCount(.deviceKeySignIns)) }
            if event.detail == Self.usernamelessDetail { counts.append(StatisticsCount(.usernamelessSignIns)) }
            if let handle { userChange = (handle, .signedIn) }
        case .signInRefused:
            counts.append(StatisticsCount(.signInsRefused, Self.dimension(event.reason, else: StatisticsCount.unknownReason)))
        case .passkeyRegistered:
            let provider = event.authenticatorName == Self.genericAuthenticatorName ? nil : event.authenticatorName
            counts.append(StatisticsCount(.registrations, Self.dimension(provider, else: StatisticsCount.unknownProvider)))
            let backup = event.backupEligible.map { $0 ? StatisticsCount.synced : StatisticsCount.deviceBound } ?? StatisticsCount.unknownBackup
            counts.append(StatisticsCount(.registrationsByBackup, backup))
            if let handle { userChange = (handle, .passkeyAdded) }
        case .passkeyRemoved:
            counts.append(StatisticsCount(.passkeysRemoved))
            if let handle { userChange = (handle, .passkeyRemoved) }
        case .deviceKeyEnrolled:
            counts.append(StatisticsCount(.deviceKeysEnrolled))
            if event.detail == Self.appAttestedDetail { counts.append(StatisticsCount(.appAttestedDeviceKeys)) }
        case .deviceKeyRemoved:
            counts.append(StatisticsCount(.deviceKeysRemoved))
        case .userCreated:
            counts.append(StatisticsCount(.users))
        case .accountDeleted:
            counts.append(StatisticsCount(.users, amount: -1))
            if let handle { userChange = (handle, .deleted) }
        case .enrollmentTicketIssued:
            counts.append(StatisticsCount(.ticketsIssued))
        case .enrollmentTicketUsed:
            counts.append(StatisticsCount(.ticketsSpent))
        case .userUpdated, .passkeyRenamed, .passkeyCounterRegressed, .deviceKeyRenamed, .sessionEnded, .adminKeyCreated,
             .adminKeyRevoked, .enrollmentTicketRevoked, .signingKeyRotated, .tenantCreated, .tenantUpdated, .tenantDeleted:
            break
        }
    }

    public static func == (lhs: EventStatistics, rhs: EventStatistics) -> Bool {
        lhs.day == rhs.day && lhs.counts == rhs.counts
            && lhs.userChange?.handle == rhs.userChange?.handle && lhs.userChange?.change == rhs.userChange?.change
    }

    private static func dimension(_ text: String?, else fallback: String) -> String {
        guard let text, !text.isEmpty else { return fallback }
        return String(text.prefix(StatisticsCount.maximumDimensionLength))
    }
}

/// The per-user state behind ``StatisticsMetric/activeUsers`` and ``StatisticsMetric/usersWithPasskey``, as a store
/// keeps it in a row per user: the rules both the stores' SQL and a rebuild in memory follow.
public struct UserStatisticsState: Sendable, Equatable {
    public var passkeys: Int64
    /// The last day the user signed in.
    public var lastActiveDay: StatisticsDay?

    public init(passkeys: Int64 = 0, lastActiveDay: StatisticsDay? = nil) {
        self.passkeys = passkeys
        self.lastActiveDay = lastActiveDay
    }

    /// Applies `change` on `day` to `state` (nil: no row), returning the new state (nil: the row deleted) and the counts
    /// it adds.
    public static func apply(_ change: UserStatisticsChange, on day: StatisticsDay, to state: UserStatisticsState?)
        -> (state: UserStatisticsState?, counts: [StatisticsCount])
    {
        var next = state ?? UserStatisticsState()
        switch change {
        case .signedIn:
            guard next.lastActiveDay != day else { return (next, []) }
            next.lastActiveDay = day
            return (next, [StatisticsCount(.activeUsers)])
        case .passkeyAdded:
            next.passkeys += 1
            return (next, next.passkeys == 1 ? [StatisticsCount(.usersWithPasskey)] : [])
        case .passkeyRemoved:
            guard let state, state.passkeys > 0 else { return (state, []) }
            next.passkeys -= 1
            return (next, next.passkeys == 0 ? [StatisticsCount(.usersWithPasskey, amount: -1)] : [])
        case .deleted:
            return (nil, (state?.passkeys ?? 0) > 0 ? [StatisticsCount(.usersWithPasskey, amount: -1)] : [])
        }
    }
}

/// One stored statistics row, summed over the store's write slots.
public struct StatisticsRow: Sendable, Hashable {
    public var day: StatisticsDay
    public var metric: StatisticsMetric
    public var dimension: String
    public var count: Int64

    public init(day: StatisticsDay, metric: StatisticsMetric, dimension: String, count: Int64) {
        self.day = day
        self.metric = metric
        self.dimension = dimension
        self.count = count
    }
}

/// A range of days' statistics as stored, and the running totals as of the range's first day.
public struct StatisticsReport: Sendable, Equatable {
    /// Every nonzero row of the range, by day.
    public var rows: [StatisticsRow]
    /// The sum of each ``StatisticsMetric/isRunningTotal`` metric over the days before the range.
    public var totalsBefore: [StatisticsMetric: Int64]

    public init(rows: [StatisticsRow], totalsBefore: [StatisticsMetric: Int64]) {
        self.rows = rows
        self.totalsBefore = totalsBefore
    }
}

/// What a rebuild of the statistics from the events did.
public struct StatisticsRebuild: Sendable, Equatable {
    /// Events read.
    public var events: Int
    /// Rows written.
    public var rows: Int
    /// How much the running totals were corrected on the first day so that they end at what the store holds
    /// (nonzero when older events were purged): users, users with a passkey.
    public var usersCorrection: Int64
    public var usersWithPasskeyCorrection: Int64

    public init(events: Int, rows: Int, usersCorrection: Int64, usersWithPasskeyCorrection: Int64) {
        self.events = events
        self.rows = rows
        self.usersCorrection = usersCorrection
        self.usersWithPasskeyCorrection = usersWithPasskeyCorrection
    }
}

/// The statistics a store keeps as its data changes: per day and tenant, written in the transaction of each event
/// (and each webhook attempt), so a range costs O(days) to read, not O(events).
public protocol StatisticsStore: Sendable {
    /// The rows of the days `from` through `through`, and the running totals before `from`.
    func statistics(from: StatisticsDay, through: StatisticsDay) async throws -> StatisticsReport
    /// Replaces this tenant's statistics rows (but the outbox's, ``StatisticsMetric/isFromOutbox``) by ones built from
    /// its events, oldest first, as live writes would have made them; the running totals are corrected on the first
    /// day to end at the users and passkey holders the store holds. Live writes wait meanwhile.
    func rebuildStatistics() async throws -> StatisticsRebuild
}

/// What a rebuild writes, decided from the events' statistics and what the store keeps: rows from the first day
/// the events cover on are replaced by the events' (but that day's own rows, when live counting made some: the
/// events of that day may be partly purged), older rows are kept, and the running totals are corrected on the
/// first day so that they end at the users and passkey holders the store holds.
public struct StatisticsRebuildPlan: Sendable, Equatable {
    /// Rows of this day and later are replaced; nil: none are (there are no events).
    public let firstReplacedDay: StatisticsDay?
    /// The rows to write (after the replaced ones are deleted), corrections included.
    public let rows: [StatisticsRow]
    public let usersCorrection: Int64
    public let usersWithPasskeyCorrection: Int64

    /// - Parameters:
    ///   - firstDayHasRows: whether the events' first day has rows of live counting (other than the outbox's).
    ///   - totalsKept: the running totals of the rows before ``firstReplacedDay`` (every row when it is nil); the
    ///     caller reads them with `firstReplacedDay(of:firstDayHasRows:)`.
    ///   - users, holders: how many users, and users with a passkey, the store holds.
    public init(
        _ accumulator: StatisticsAccumulator, firstDayHasRows: Bool, totalsKept: [StatisticsMetric: Int64], users: Int64, holders: Int64,
        today: StatisticsDay
    ) {
        let replaced = Self.firstReplacedDay(of: accumulator, firstDayHasRows: firstDayHasRows)
        var rows = accumulator.sortedRows.filter { row in replaced.map { row.day >= $0 } ?? false }
        func total(_ metric: StatisticsMetric) -> Int64 {
            (totalsKept[metric] ?? 0) + rows.reduce(0) { $1.metric == metric ? $0 + $1.count : $0 }
        }
        usersCorrection = users - total(.users)
        usersWithPasskeyCorrection = holders - total(.usersWithPasskey)
        let correctionDay = accumulator.firstDay ?? today
        for (metric, amount) in [(StatisticsMetric.users, usersCorrection), (.usersWithPasskey, usersWithPasskeyCorrection)] where amount != 0 {
            if let index = rows.firstIndex(where: { $0.day == correctionDay && $0.metric == metric && $0.dimension.isEmpty }) {
                rows[index].count += amount
            } else {
                rows.append(StatisticsRow(day: correctionDay, metric: metric, dimension: "", count: amount))
            }
        }
        firstReplacedDay = replaced
        self.rows = rows
    }

    /// The first day whose rows a rebuild replaces: the events' first day, or the next when live counting kept rows
    /// for it.
    public static func firstReplacedDay(of accumulator: StatisticsAccumulator, firstDayHasRows: Bool) -> StatisticsDay? {
        accumulator.firstDay.map { firstDayHasRows ? $0.adding(days: 1) : $0 }
    }
}

/// A rebuild reads the events twice: all of them first, while live writes go on, then, holding what stops them,
/// those written since. This keeps the first read's last sequence numbers, so that the second finds the events
/// that committed after the first read began with a number below its last (PostgreSQL numbers events as they are
/// written, and two writers may commit out of that order; SQLite's one writer commits in order).
public struct RecentSequences: Sendable {
    /// How far below the last number the second read looks: far more events than writers in flight at once.
    public static let window: Int64 = 100_000

    private var seen: [Int64] = []
    private var start = 0

    public init() {}

    /// The last number added.
    public var last: Int64? { seen.last }

    /// Where the second read starts: the window below the last number.
    public var secondReadAfter: Int64 { max(0, (last ?? 0) - Self.window) }

    /// Adds a number of the first read (in increasing order).
    public mutating func add(_ sequence: Int64) {
        seen.append(sequence)
        while start < seen.count, seen[start] <= sequence - Self.window { start += 1 }
        if start > 4_096, start * 2 > seen.count {
            seen.removeFirst(start)
            start = 0
        }
    }

    /// Whether the first read took the event with this number.
    public func contains(_ sequence: Int64) -> Bool {
        guard sequence > secondReadAfter else { return true }
        var low = start, high = seen.count
        while low < high {
            let middle = (low + high) / 2
            if seen[middle] < sequence { low = middle + 1 } else { high = middle }
        }
        return low < seen.count && seen[low] == sequence
    }
}

/// A rebuild's work in memory: the events' statistics, replayed oldest first.
public struct StatisticsAccumulator: Sendable {
    public private(set) var rows: [StatisticsRowKey: Int64] = [:]
    public private(set) var users: [[UInt8]: UserStatisticsState] = [:]
    public private(set) var events = 0
    public private(set) var firstDay: StatisticsDay?

    public struct StatisticsRowKey: Sendable, Hashable {
        public var day: StatisticsDay
        public var metric: StatisticsMetric
        public var dimension: String
    }

    public init() {}

    public mutating func add(_ event: SecurityEvent) {
        let statistics = EventStatistics(of: event)
        events += 1
        if firstDay.map({ statistics.day < $0 }) ?? true { firstDay = statistics.day }
        var counts = statistics.counts
        if let (handle, change) = statistics.userChange {
            let (state, more) = UserStatisticsState.apply(change, on: statistics.day, to: users[handle])
            users[handle] = state
            counts += more
        }
        for count in counts { add(count, on: statistics.day) }
    }

    public mutating func add(_ count: StatisticsCount, on day: StatisticsDay) {
        rows[StatisticsRowKey(day: day, metric: count.metric, dimension: count.dimension), default: 0] += count.amount
    }

    /// The sum of `metric` over every day.
    public func total(_ metric: StatisticsMetric) -> Int64 {
        rows.reduce(0) { $1.key.metric == metric ? $0 + $1.value : $0 }
    }

    /// The nonzero rows, by day, metric and dimension.
    public var sortedRows: [StatisticsRow] {
        rows.filter { $0.value != 0 }
            .map { StatisticsRow(day: $0.key.day, metric: $0.key.metric, dimension: $0.key.dimension, count: $0.value) }
            .sorted { ($0.day, $0.metric.rawValue, $0.dimension) < ($1.day, $1.metric.rawValue, $1.dimension) }
    }
}
