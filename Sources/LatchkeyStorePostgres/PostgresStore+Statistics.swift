import Foundation
import LatchkeyStore
import LatchkeyStoreSQL
import PostgresNIO

/// The statistics, kept in each event's transaction by one statement per event: the event's counts and, when it
/// changes its user's statistics row, that change and what it derives (``UserStatisticsState/apply(_:on:to:)`` in
/// SQL), together.
///
/// Every instance adds to a day's rows at once (each sign-in adds to the same few), so each row is kept in
/// ``statisticsSlots`` slots and a write takes one at random: concurrent writers rarely wait on one row's lock, and
/// a read sums the slots.
extension PostgresStore {
    /// How many rows each (day, metric, dimension) is spread over.
    static let statisticsSlots: Int16 = 8

    static func statisticsSlot() -> Int16 { Int16.random(in: 0..<statisticsSlots) }

    /// The class of the advisory lock on a tenant's statistics (`lkst`): every write to them holds it shared until its
    /// transaction ends, a rebuild holds it alone.
    static let statisticsLockClass: Int32 = 0x6C6B_7374

    /// The SQL that takes the tenant's statistics lock shared; `tenant` is the SQL of the tenant's ID.
    static func sharedStatisticsLock(tenant: String) -> String {
        "pg_advisory_xact_lock_shared(\(statisticsLockClass), hashtext(\(tenant)))"
    }

    /// What a user change does to its `statistics_users` row (returning `value`), after the lock (`locked`), and the
    /// count it derives: its metric and amount, when `value` meets the condition
    /// (``UserStatisticsChange/derivedCount(returned:)`` in SQL). `$1` is the tenant, `$2` the day, `$7` the user handle.
    private static func userChangeSQL(_ change: UserStatisticsChange)
        -> (change: String, metric: StatisticsMetric, amount: Int, condition: String)
    {
        switch change {
        case .signedIn:
            ("""
             INSERT INTO statistics_users (tenant, user_handle, passkeys, last_active_day) SELECT $1, $7, 0, $2 FROM locked
             ON CONFLICT (tenant, user_handle) DO UPDATE SET last_active_day = EXCLUDED.last_active_day
             WHERE statistics_users.last_active_day IS DISTINCT FROM EXCLUDED.last_active_day
             RETURNING 1 AS value
             """, .activeUsers, 1, "")
        case .passkeyAdded:
            ("""
             INSERT INTO statistics_users (tenant, user_handle, passkeys, last_active_day) SELECT $1, $7, 1, NULL FROM locked
             ON CONFLICT (tenant, user_handle) DO UPDATE SET passkeys = statistics_users.passkeys + 1
             RETURNING passkeys AS value
             """, .usersWithPasskey, 1, "WHERE value = 1")
        case .passkeyRemoved:
            ("""
             UPDATE statistics_users SET passkeys = passkeys - 1 FROM locked WHERE tenant = $1 AND user_handle = $7 AND passkeys > 0
             RETURNING passkeys AS value
             """, .usersWithPasskey, -1, "WHERE value = 0")
        case .deleted:
            ("DELETE FROM statistics_users USING locked WHERE tenant = $1 AND user_handle = $7 RETURNING passkeys AS value",
             .usersWithPasskey, -1, "WHERE value > 0")
        case .imported(let passkeys):
            // The count is the store's own number, never input text.
            ("""
             INSERT INTO statistics_users (tenant, user_handle, passkeys, last_active_day) SELECT $1, $7, \(passkeys), NULL FROM locked
             ON CONFLICT (tenant, user_handle) DO UPDATE SET passkeys = statistics_users.passkeys + EXCLUDED.passkeys
             RETURNING passkeys AS value
             """, .usersWithPasskey, 1, passkeys > 0 ? "WHERE value = \(passkeys)" : "WHERE false")
        }
    }

    private static let upsertCounts = """
        ON CONFLICT (tenant, day, metric, dimension, slot) DO UPDATE SET count = daily_statistics.count + EXCLUDED.count
        """

    /// Adds what `event` counts to its day's rows, inside the caller's transaction (one statement).
    static func countStatistics(of event: SecurityEvent, of tenant: TenantID, on connection: PostgresConnection) async throws {
        let statistics = EventStatistics(of: event)
        guard !statistics.counts.isEmpty || statistics.userChange != nil else { return }
        var binds = PostgresBindings()
        binds.append(tenant)
        binds.append(statistics.day.description)
        binds.append(statisticsSlot())
        binds.append(statistics.counts.map(\.metric.rawValue))
        binds.append(statistics.counts.map(\.dimension))
        binds.append(statistics.counts.map(\.amount))
        // Every write below reads `locked`, so the lock is taken before any of them.
        var sql = "WITH locked AS (SELECT \(sharedStatisticsLock(tenant: "$1"))) "
        var derived = ""
        if let (handle, change) = statistics.userChange {
            binds.append(handle.bytea)
            let parts = userChangeSQL(change)
            sql += ", changed AS (\(parts.change)) "
            derived = "UNION ALL SELECT $1, $2, '\(parts.metric.rawValue)', '', $3, \(parts.amount)::bigint FROM changed \(parts.condition)"
        }
        sql += """
            INSERT INTO daily_statistics (tenant, day, metric, dimension, slot, count)
            SELECT $1, $2, metric, dimension, $3, amount FROM locked, unnest($4::text[], $5::text[], $6::bigint[]) AS c(metric, dimension, amount)
            \(derived)
            \(upsertCounts)
            """
        try await execute(PostgresQuery(unsafeSQL: sql, binds: binds), on: connection)
    }

    /// The statement that adds one webhook outcome to today's row, as a CTE over `finished` (the delivery's row).
    static func countWebhookOutcome(_ metric: StatisticsMetric, day: StatisticsDay) -> String {
        """
        , counted AS (
            INSERT INTO daily_statistics (tenant, day, metric, dimension, slot, count)
            SELECT tenant, '\(day.description)', '\(metric.rawValue)', '', \(statisticsSlot()), 1 FROM finished
            \(upsertCounts)
        )
        """
    }

    public func statistics(from: StatisticsDay, through: StatisticsDay) async throws -> StatisticsReport {
        let tenant = tenant
        let running = StatisticsMetric.allCases.filter(\.isRunningTotal).map(\.rawValue)
        return try await withConnection { connection in
            var rows: [StatisticsRow] = []
            let query: PostgresQuery = """
                SELECT day, metric, dimension, sum(count)::bigint FROM daily_statistics
                WHERE tenant = \(tenant) AND day >= \(from.description) AND day <= \(through.description)
                GROUP BY day, metric, dimension HAVING sum(count) <> 0 ORDER BY day, metric, dimension
                """
            for try await row in try await Self.send(query, on: connection) {
                var columns = ColumnReader(row)
                let dayText = try columns.next(String.self), metricText = try columns.next(String.self)
                let dimension = try columns.next(String.self), count = try columns.next(Int64.self)
                // A metric this Latchkey does not know (written by a newer one) is left out.
                guard let day = StatisticsDay(dayText), let metric = StatisticsMetric(rawValue: metricText) else { continue }
                rows.append(StatisticsRow(day: day, metric: metric, dimension: dimension, count: count))
            }
            var totals: [StatisticsMetric: Int64] = [:]
            let before: PostgresQuery = """
                SELECT metric, coalesce(sum(count), 0)::bigint FROM daily_statistics
                WHERE tenant = \(tenant) AND metric = ANY(\(running)) AND day < \(from.description) GROUP BY metric
                """
            for try await row in try await Self.send(before, on: connection) {
                var columns = ColumnReader(row)
                let metricText = try columns.next(String.self), sum = try columns.next(Int64.self)
                if let metric = StatisticsMetric(rawValue: metricText) { totals[metric] = sum }
            }
            for metric in StatisticsMetric.allCases where metric.isRunningTotal && totals[metric] == nil { totals[metric] = 0 }
            return StatisticsReport(rows: rows, totalsBefore: totals)
        }
    }

    /// Reads every event while live writes go on, then, in one transaction holding the tenant's statistics lock alone
    /// (the tenant's writes of events wait for it; other tenants' do not), the events written since, and replaces the
    /// rows (``StatisticsRebuildPlan``).
    public func rebuildStatistics() async throws -> StatisticsRebuild {
        let tenant = tenant
        let (first, recent) = try await withConnection { connection in
            var accumulator = StatisticsAccumulator(), recent = RecentSequences()
            try await Self.forEachEvent(of: tenant, after: 0, on: connection) { event in
                accumulator.add(event)
                recent.add(event.sequence)
            }
            return (accumulator, recent)
        }
        return try await transaction { connection in
            var lock = PostgresQuery(unsafeSQL: "SELECT pg_advisory_xact_lock(\(Self.statisticsLockClass), hashtext($1))")
            lock.binds.append(tenant)
            try await Self.execute(lock, on: connection)
            var accumulator = first
            try await Self.forEachEvent(of: tenant, after: recent.secondReadAfter, on: connection) { event in
                if !recent.contains(event.sequence) { accumulator.add(event) }
            }
            let plan = try await Self.rebuildPlan(accumulator, of: tenant, on: connection)
            try await Self.write(plan, users: accumulator.users, of: tenant, on: connection)
            return StatisticsRebuild(
                events: accumulator.events, rows: plan.rows.count, usersCorrection: plan.usersCorrection,
                usersWithPasskeyCorrection: plan.usersWithPasskeyCorrection)
        }
    }

    /// Calls `body` with each of `tenant`'s events numbered after `sequence`, oldest first, as they arrive.
    private static func forEachEvent(
        of tenant: TenantID, after sequence: Int64, on connection: PostgresConnection, _ body: (SecurityEvent) -> Void
    ) async throws {
        let events: PostgresQuery = """
            SELECT \(unescaped: eventColumns) FROM security_events WHERE tenant = \(tenant) AND sequence > \(sequence) ORDER BY sequence
            """
        for try await row in try await send(events, on: connection) {
            var columns = ColumnReader(row)
            body(try event(&columns))
        }
    }

    private static let outboxMetrics = StatisticsMetric.allCases.filter(\.isFromOutbox).map(\.rawValue)

    /// What the rebuild writes: the plan of `accumulator`'s rows against the rows and records `tenant` keeps.
    private static func rebuildPlan(
        _ accumulator: StatisticsAccumulator, of tenant: TenantID, on connection: PostgresConnection
    ) async throws -> StatisticsRebuildPlan {
        var firstDayHasRows = false
        if let day = accumulator.firstDay {
            firstDayHasRows = !(try await rows("""
                SELECT 1 FROM daily_statistics WHERE tenant = \(tenant) AND day = \(day.description) AND NOT metric = ANY(\(outboxMetrics)) LIMIT 1
                """, on: connection) { _ in true }).isEmpty
        }
        let replaced = StatisticsRebuildPlan.firstReplacedDay(of: accumulator, firstDayHasRows: firstDayHasRows)
        var kept: [StatisticsMetric: Int64] = [:]
        for metric in StatisticsMetric.allCases where metric.isRunningTotal {
            kept[metric] = try await rows("""
                SELECT coalesce(sum(count), 0)::bigint FROM daily_statistics
                WHERE tenant = \(tenant) AND metric = \(metric.rawValue) AND (\(replaced?.description)::text IS NULL OR day < \(replaced?.description))
                \(unescaped: PlannerNote.statisticsRebuild)
                """, on: connection) { try $0.next(Int64.self) }.first ?? 0
        }
        let users = try await rows(
            "SELECT count(*)::bigint FROM users WHERE tenant = \(tenant) \(unescaped: PlannerNote.statisticsRebuild)", on: connection) { try $0.next(Int64.self) }.first ?? 0
        let holders = try await rows(
            "SELECT count(DISTINCT user_handle)::bigint FROM credentials WHERE tenant = \(tenant) \(unescaped: PlannerNote.statisticsRebuild)", on: connection
        ) { try $0.next(Int64.self) }.first ?? 0
        return StatisticsRebuildPlan(
            accumulator, firstDayHasRows: firstDayHasRows, totalsKept: kept, users: users, holders: holders, today: StatisticsDay(Date()))
    }

    /// Replaces `tenant`'s rows from the plan's first day on by its rows, and the per-user state by `users`' last active
    /// days with each holder's passkeys as stored (whatever the events that remain say).
    private static func write(
        _ plan: StatisticsRebuildPlan, users: [[UInt8]: UserStatisticsState], of tenant: TenantID, on connection: PostgresConnection
    ) async throws {
        if let replaced = plan.firstReplacedDay {
            try await execute("""
                DELETE FROM daily_statistics WHERE tenant = \(tenant) AND day >= \(replaced.description) AND NOT metric = ANY(\(outboxMetrics))
                """, on: connection)
        }
        let rows = plan.rows
        try await execute("""
            INSERT INTO daily_statistics (tenant, day, metric, dimension, slot, count)
            SELECT \(tenant), day, metric, dimension, 0, count
            FROM unnest(\(rows.map(\.day.description))::text[], \(rows.map(\.metric.rawValue))::text[],
                \(rows.map(\.dimension))::text[], \(rows.map(\.count))::bigint[]) AS r(day, metric, dimension, count)
            \(unescaped: upsertCounts)
            """, on: connection)
        try await execute("DELETE FROM statistics_users WHERE tenant = \(tenant) \(unescaped: PlannerNote.statisticsRebuild)", on: connection)
        let active = users.compactMap { handle, state in state.lastActiveDay.map { (handle, $0) } }
        try await execute("""
            INSERT INTO statistics_users (tenant, user_handle, passkeys, last_active_day)
            SELECT \(tenant), handle, 0, day FROM unnest(\(active.map(\.0.bytea))::bytea[], \(active.map(\.1.description))::text[])
                AS a(handle, day)
            """, on: connection)
        try await execute("""
            INSERT INTO statistics_users (tenant, user_handle, passkeys, last_active_day)
            SELECT tenant, user_handle, count(*), NULL FROM credentials WHERE tenant = \(tenant) GROUP BY tenant, user_handle
            \(unescaped: PlannerNote.statisticsRebuild)
            ON CONFLICT (tenant, user_handle) DO UPDATE SET passkeys = EXCLUDED.passkeys
            """, on: connection)
    }
}
