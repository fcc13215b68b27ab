import Foundation
import LatchkeyStore
import LatchkeyStoreSQL

/// The statistics, kept in each event's transaction: one upsert per count, and one statement on the user's
/// statistics row when the event changes it (``UserStatisticsState/apply(_:on:to:)`` in SQL).
extension SQLiteStore {
    private static let addCount = """
        INSERT INTO daily_statistics (tenant, day, metric, dimension, count) VALUES (current_tenant(), ?1, ?2, ?3, ?4)
        ON CONFLICT (tenant, day, metric, dimension) DO UPDATE SET count = count + excluded.count
        """
    /// A row when the user had not signed in that day yet.
    private static let markActive = """
        INSERT INTO statistics_users (tenant, user_handle, passkeys, last_active_day) VALUES (current_tenant(), ?1, 0, ?2)
        ON CONFLICT (tenant, user_handle) DO UPDATE SET last_active_day = excluded.last_active_day
        WHERE last_active_day IS NOT excluded.last_active_day
        RETURNING 1
        """
    private static let addPasskey = """
        INSERT INTO statistics_users (tenant, user_handle, passkeys, last_active_day) VALUES (current_tenant(), ?1, 1, NULL)
        ON CONFLICT (tenant, user_handle) DO UPDATE SET passkeys = passkeys + 1
        RETURNING passkeys
        """
    private static let removePasskey = """
        UPDATE statistics_users SET passkeys = passkeys - 1 WHERE tenant = current_tenant() AND user_handle = ?1 AND passkeys > 0
        RETURNING passkeys
        """
    private static let deleteUser = "DELETE FROM statistics_users WHERE tenant = current_tenant() AND user_handle = ?1 RETURNING passkeys"
    private static let addImported = """
        INSERT INTO statistics_users (tenant, user_handle, passkeys, last_active_day) VALUES (current_tenant(), ?1, ?2, NULL)
        ON CONFLICT (tenant, user_handle) DO UPDATE SET passkeys = passkeys + excluded.passkeys
        RETURNING passkeys
        """

    /// Adds what `event` counts to its day's rows, in the event's transaction.
    static func countStatistics(of event: SecurityEvent, in database: SQLiteConnection) throws {
        let statistics = EventStatistics(of: event)
        for count in statistics.counts { try add(count, on: statistics.day, in: database) }
        guard let (handle, change) = statistics.userChange else { return }
        let sql = switch change {
        case .signedIn: markActive
        case .passkeyAdded: addPasskey
        case .passkeyRemoved: removePasskey
        case .deleted: deleteUser
        case .imported: addImported
        }
        let returned = try database.withStatement(sql) { statement -> Int64? in
            switch change {
            case .signedIn: try statement.bind(handle, statistics.day.description)
            case .imported(let passkeys): try statement.bind(handle, passkeys)
            default: try statement.bind(handle)
            }
            let value = try statement.step() ? statement.int64(0) : nil
            try statement.finish()
            return value
        }
        if let derived = change.derivedCount(returned: returned) { try add(derived, on: statistics.day, in: database) }
    }

    static func add(_ count: StatisticsCount, on day: StatisticsDay, in database: SQLiteConnection) throws {
        try database.withStatement(addCount) { statement in
            try statement.bind(day.description, count.metric.rawValue, count.dimension, count.amount)
            try statement.step()
        }
    }

    public func statistics(from: StatisticsDay, through: StatisticsDay) async throws -> StatisticsReport {
        try await withDatabase { database in
            let rows = try database.withStatement("""
                SELECT day, metric, dimension, count FROM daily_statistics
                WHERE tenant = current_tenant() AND day >= ?1 AND day <= ?2 AND count <> 0 ORDER BY day, metric, dimension
                """) { statement in
                try statement.bind(from.description, through.description)
                var rows: [StatisticsRow] = []
                while try statement.step() {
                    // A metric this Latchkey does not know (written by a newer one) is left out.
                    guard let day = StatisticsDay(statement.text(0)), let metric = StatisticsMetric(rawValue: statement.text(1)) else {
                        continue
                    }
                    rows.append(StatisticsRow(day: day, metric: metric, dimension: statement.text(2), count: statement.int64(3)))
                }
                return rows
            }
            var totals: [StatisticsMetric: Int64] = [:]
            for metric in StatisticsMetric.allCases where metric.isRunningTotal {
                totals[metric] = try database.withStatement("""
                    SELECT coalesce(sum(count), 0) FROM daily_statistics WHERE tenant = current_tenant() AND metric = ?1 AND day < ?2
                    """) { statement in
                    try statement.bind(metric.rawValue, from.description)
                    return try statement.step() ? statement.int64(0) : 0
                }
            }
            return StatisticsReport(rows: rows, totalsBefore: totals)
        }
    }

    /// Reads every event while live writes go on, then, in one write transaction (live writes wait for it: SQLite
    /// has one writer), the events written since, and replaces the rows (``StatisticsRebuildPlan``).
    public func rebuildStatistics() async throws -> StatisticsRebuild {
        let (first, recent) = try await withDatabase { database in
            var accumulator = StatisticsAccumulator(), recent = RecentSequences()
            try Self.forEachEvent(after: 0, in: database) { event in
                accumulator.add(event)
                recent.add(event.sequence)
            }
            return (accumulator, recent)
        }
        return try await withTransaction { database in
            var accumulator = first
            try Self.forEachEvent(after: recent.secondReadAfter, in: database) { event in
                if !recent.contains(event.sequence) { accumulator.add(event) }
            }
            let plan = try Self.rebuildPlan(accumulator, in: database)
            try Self.write(plan, users: accumulator.users, in: database)
            return StatisticsRebuild(
                events: accumulator.events, rows: plan.rows.count, usersCorrection: plan.usersCorrection,
                usersWithPasskeyCorrection: plan.usersWithPasskeyCorrection)
        }
    }

    /// Calls `body` with each of the tenant's events numbered after `sequence`, oldest first, as they are read.
    private static func forEachEvent(after sequence: Int64, in database: SQLiteConnection, _ body: (SecurityEvent) -> Void) throws {
        try database.withStatement(
            "SELECT \(eventColumns) FROM security_events WHERE tenant = current_tenant() AND sequence > ?1 ORDER BY sequence"
        ) { statement in
            try statement.bind(sequence)
            while try statement.step() { body(try event(statement, from: 0)) }
        }
    }

    private static let outboxMetrics = StatisticsMetric.allCases.filter(\.isFromOutbox).map { "'\($0.rawValue)'" }.joined(separator: ", ")

    /// What the rebuild writes: the plan of `accumulator`'s rows against the rows and records the tenant keeps.
    private static func rebuildPlan(_ accumulator: StatisticsAccumulator, in database: SQLiteConnection) throws -> StatisticsRebuildPlan {
        let firstDayHasRows = try accumulator.firstDay.map { day in
            try database.withStatement("""
                SELECT 1 FROM daily_statistics WHERE tenant = current_tenant() AND day = ?1 AND metric NOT IN (\(outboxMetrics)) LIMIT 1
                """) { statement in
                try statement.bind(day.description)
                return try statement.step()
            }
        } ?? false
        let replaced = StatisticsRebuildPlan.firstReplacedDay(of: accumulator, firstDayHasRows: firstDayHasRows)
        var kept: [StatisticsMetric: Int64] = [:]
        for metric in StatisticsMetric.allCases where metric.isRunningTotal {
            kept[metric] = try database.withStatement("""
                SELECT coalesce(sum(count), 0) FROM daily_statistics WHERE tenant = current_tenant() AND metric = ?1 AND (?2 IS NULL OR day < ?2)
                \(PlannerNote.statisticsRebuild)
                """) { statement in
                try statement.bind(metric.rawValue, replaced?.description)
                return try statement.step() ? statement.int64(0) : 0
            }
        }
        return StatisticsRebuildPlan(
            accumulator, firstDayHasRows: firstDayHasRows, totalsKept: kept,
            users: try count("SELECT count(*) FROM users WHERE tenant = current_tenant() \(PlannerNote.statisticsRebuild)", in: database),
            holders: try count(
                "SELECT count(DISTINCT user_handle) FROM credentials WHERE tenant = current_tenant() \(PlannerNote.statisticsRebuild)", in: database),
            today: StatisticsDay(Date()))
    }

    /// Replaces the tenant's rows from the plan's first day on by its rows, and the per-user state by `users`' last
    /// active days with each holder's passkeys as stored (whatever the events that remain say).
    private static func write(_ plan: StatisticsRebuildPlan, users: [[UInt8]: UserStatisticsState], in database: SQLiteConnection) throws {
        if let replaced = plan.firstReplacedDay {
            try database.withStatement(
                "DELETE FROM daily_statistics WHERE tenant = current_tenant() AND day >= ?1 AND metric NOT IN (\(outboxMetrics))"
            ) { statement in
                try statement.bind(replaced.description)
                try statement.finish()
            }
        }
        for row in plan.rows { try add(StatisticsCount(row.metric, row.dimension, amount: row.count), on: row.day, in: database) }
        try database.withStatement("DELETE FROM statistics_users WHERE tenant = current_tenant() \(PlannerNote.statisticsRebuild)") {
            try $0.finish()
        }
        for (handle, state) in users where state.lastActiveDay != nil {
            try database.withStatement("""
                INSERT INTO statistics_users (tenant, user_handle, passkeys, last_active_day) VALUES (current_tenant(), ?1, 0, ?2)
                """) { statement in
                try statement.bind(handle, state.lastActiveDay?.description)
                try statement.step()
            }
        }
        try database.withStatement("""
            INSERT INTO statistics_users (tenant, user_handle, passkeys, last_active_day)
            SELECT tenant, user_handle, count(*), NULL FROM credentials WHERE tenant = current_tenant() GROUP BY user_handle
            ON CONFLICT (tenant, user_handle) DO UPDATE SET passkeys = excluded.passkeys \(PlannerNote.statisticsRebuild)
            """) { try $0.finish() }
    }

    private static func count(_ sql: String, in database: SQLiteConnection) throws -> Int64 {
        try database.withStatement(sql) { statement in try statement.step() ? statement.int64(0) : 0 }
    }
}
