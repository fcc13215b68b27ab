import Foundation

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
            let (state, derived) = UserStatisticsState.apply(change, on: statistics.day, to: users[handle])
            users[handle] = state
            if let derived { counts.append(derived) }
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
