import Foundation
import LatchkeyStore
import PostgresNIO
import Testing

@testable import LatchkeyStorePostgres
@testable import LatchkeyStoreSQLite

/// No statement a store sends on a request's path reads rows in proportion to a table that grows with users,
/// credentials, sessions, events, deliveries or statistics: each backend's planner is asked about every statement
/// the ``StoreWorkload`` sends (learned where the store sends them, so a new statement is covered as soon as a
/// store call sends it), on a store of three tenants with rows in every table. A statement that reads a whole
/// tenant by design (a statistics rebuild) says so in its text (``PlannerNote``), and may then read its tenant's rows,
/// never every tenant's.
@Suite("Query plans", .closesTestDatabases)
struct QueryPlanTests {
    /// Users of the default tenant (each with a row in every growing table); the others have a fortieth as many.
    static let usersPerTenant = 200

    @Test func everySQLiteStatementReadsBoundedRows() async throws {
        let store = try SQLiteStore(path: TemporaryDatabase.newPath())
        let workload = StoreWorkload()
        try await workload.seed(store, users: Self.usersPerTenant)
        try await workload.run(on: store)
        try Self.expectEveryCallMade(by: workload, excluding: ["SharedLimitsStore"])

        // Plans as the server's store makes them: it never runs ANALYZE, so SQLite plans from the schema alone.
        let statements = store.preparedStatements.filter(PlanRules.isPlanned)
        let (tables, plans) = try store.lockedDatabase { database in
            let tables = try database.withStatement("SELECT name FROM sqlite_master WHERE type = 'table'") { row in
                var names: [String] = []
                while try row.step() { names.append(row.text(0)) }
                return names
            }
            let plans = try statements.map { sql in
                try database.withStatement("EXPLAIN QUERY PLAN " + sql) { row in
                    var steps: [PlanRules.SQLiteStep] = []
                    while try row.step() { steps.append(PlanRules.SQLiteStep(id: row.int64(0), parent: row.int64(1), detail: row.text(3))) }
                    return steps
                }
            }
            return (tables, plans)
        }
        let growing = PlanRules.growingTables(among: tables)
        #expect(growing.isSuperset(of: ["users", "credentials", "sessions", "security_events", "webhook_deliveries", "daily_statistics"]))
        #expect(statements.count > 80, "the workload sends every kind of statement (\(statements.count) seen)")
        for (sql, plan) in zip(statements, plans) where PlanRules.note(of: sql) != .exempt {
            let findings = PlanRules.sqliteFindings(sql: sql, plan: plan, growing: growing)
            for finding in findings where !(PlanRules.note(of: sql) == .wholeTenant && finding.contains("of a tenant")) {
                Issue.record("\(finding)\n  plan: \(plan.map(\.detail).joined(separator: " | "))\n  statement: \(PlanRules.oneLine(sql))")
            }
        }
    }

    @Test(.enabled(if: !TestPostgres.skipped)) func everyPostgreSQLStatementReadsBoundedRows() async throws {
        let configuration = try await TestPostgres.makeDatabase()
        let store = try await TestPostgres.open(configuration)
        let workload = StoreWorkload()
        try await workload.seed(store, users: Self.usersPerTenant)
        try await TestPostgres.withConnection(to: configuration) { connection in
            try await PostgresStore.execute("ANALYZE", on: connection)
        }
        let log = StatementLog<SentStatement>()
        try await PostgresStore.$statementLog.withValue(log) { try await workload.run(on: store) }
        try Self.expectEveryCallMade(by: workload)

        // A few sendings of each text (their binds differ: a user's activity or the whole feed).
        var perText: [String: Int] = [:]
        let sent = log.statements.filter { statement in
            guard PlanRules.isPlanned(statement.query.sql) else { return false }
            perText[statement.query.sql, default: 0] += 1
            return perText[statement.query.sql, default: 0] <= 4
        }
        #expect(perText.count > 60, "the workload sends every kind of statement (\(perText.count) seen)")
        try await TestPostgres.withConnection(to: configuration) { connection in
            let tables = try await PostgresStore.rows(
                "SELECT tablename::text FROM pg_tables WHERE schemaname = current_schema()", on: connection) { try $0.next(String.self) }
            let growing = PlanRules.growingTables(among: tables)
            #expect(growing.isSuperset(of: ["users", "credentials", "sessions", "security_events", "webhook_deliveries", "daily_statistics"]))
            for statement in sent where PlanRules.note(of: statement.query.sql) != .exempt {
                let plan = try await Self.plan(of: statement, on: connection)
                let wholeTenant = PlanRules.note(of: statement.query.sql) == .wholeTenant
                for finding in PlanRules.postgresFindings(plan: plan, growing: growing) where !(wholeTenant && finding.contains("of a tenant")) {
                    Issue.record("""
                        \(finding)
                          plan: \(PlanRules.describe(plan))
                          statement: \(PlanRules.oneLine(statement.query.sql))
                        """)
                }
            }
        }
    }

    /// The plan PostgreSQL makes for `statement` with its binds (a prepared one as planned once for every value),
    /// told to read through indexes wherever one serves: the seeded tables are small enough that reading them whole,
    /// hashing or sorting them is cheapest, a big store's are not, and the question is whether the statement can be
    /// answered reading few rows. A sequential scan, a whole index or a tenant's rows found then is the only way.
    static func plan(of statement: SentStatement, on connection: PostgresConnection) async throws -> [String: Any] {
        // Settings local to a transaction that is rolled back: EXPLAIN runs nothing, and the connection is left as it was.
        try await PostgresStore.execute("BEGIN", on: connection)
        let text: String
        do {
            for method in ["seqscan", "bitmapscan", "hashjoin", "mergejoin", "sort"] {
                try await PostgresStore.execute(PostgresQuery(unsafeSQL: "SET LOCAL enable_\(method) = off"), on: connection)
            }
            if statement.isPrepared { try await PostgresStore.execute("SET LOCAL plan_cache_mode = force_generic_plan", on: connection) }
            let explain = PostgresQuery(unsafeSQL: "EXPLAIN (FORMAT JSON) " + statement.query.sql, binds: statement.query.binds)
            text = try await PostgresStore.rows(explain, on: connection) { try $0.next(String.self) }.joined()
        } catch {
            try? await PostgresStore.execute("ROLLBACK", on: connection)
            throw error
        }
        try await PostgresStore.execute("ROLLBACK", on: connection)
        let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]
        return parsed?.first?["Plan"] as? [String: Any] ?? [:]
    }

    /// Calls a backend times under another call's name (the name its operation has always had in the metrics).
    static let timedAs = ["deleteCredentialEvenIfLast(id:ownedBy:recording:)": "deleteCredential"]

    /// Fails naming each call of the contract the workload did not make.
    static func expectEveryCallMade(
        by workload: StoreWorkload, excluding protocols: Set<String> = [], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let required = try StoreRequirements.asyncCalls(excluding: protocols)
        #expect(required.count > 60, "the contract's calls were read from its source (\(required.count) found)", sourceLocation: sourceLocation)
        let called = workload.calledOperations
        let missing = required.filter { !called.contains($0) && !called.contains(timedAs[$0] ?? $0) }.sorted()
        #expect(missing.isEmpty, "the workload makes every store call; not made: \(missing)", sourceLocation: sourceLocation)
    }
}

/// What a plan may not do, and which tables it applies to.
enum PlanRules {
    /// Tables whose size is the deployment's, not its traffic's: a handful of rows each.
    static let fixedTables: Set<String> = [
        "tenants", "tenant_hosts", "tenant_directory", "admin_keys", "signing_keys", "secrets", "store_health",
        "latchkey_schema_migrations", "sqlite_sequence",
        // A client's bucket is kept only until it is full again, seconds after its last request: its rows are the
        // clients of the last minute, not of the store.
        "rate_limit_buckets",
        // A tenant's OpenID clients: the applications it signs people in to, made by hand.
        "oauth_clients",
    ]

    /// Partial indexes whose rows are a backlog, not a history: reading a tenant's rows of one reads what waits.
    static let backlogIndexes: Set<String> = [
        "webhook_deliveries_pending",  // deliveries not yet made: the outbox's depth, which the server reports as a gauge
    ]

    static func growingTables(among tables: [String]) -> Set<String> {
        Set(tables.filter { !fixedTables.contains($0) && !$0.hasPrefix("sqlite_") })
    }

    /// Statements a planner plans: not `BEGIN`, `COMMIT`, pragmas or locks.
    static func isPlanned(_ sql: String) -> Bool {
        let head = sql.drop { $0.isWhitespace }.prefix(7).uppercased()
        return ["SELECT", "INSERT", "UPDATE", "DELETE", "WITH"].contains { head.hasPrefix($0) } && !sql.contains("pg_advisory")
    }

    /// What a statement's ``PlannerNote`` lets it read, when it has one with its reason.
    enum Note { case wholeTenant, exempt }

    static func note(of sql: String) -> Note? {
        for (marker, note) in [("/* whole tenant: ", Note.wholeTenant), ("/* whole store: ", .exempt), ("/* bounded: ", .exempt)] {
            if let found = sql.range(of: marker), sql[found.upperBound...].prefix(while: { $0 != "*" }).count > 3 { return note }
        }
        return nil
    }

    static func oneLine(_ sql: String) -> String {
        sql.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }

    /// The table each name in `sql` stands for: itself, and each alias given after `FROM`, `JOIN`, `UPDATE` or `INTO`.
    static func tableNames(in sql: String) -> [String: String] {
        var names: [String: String] = [:]
        let pattern = #/(?i)\b(?:FROM|JOIN|UPDATE|INTO)\s+([a-z_]+)(?:\s+(?:AS\s+)?([a-z]+))?/#
        let keywords: Set<String> = ["where", "on", "set", "using", "join", "left", "inner", "group", "order", "limit", "values", "returning",
                                     "select", "as", "and", "or", "natural", "cross", "default"]
        for match in sql.matches(of: pattern) {
            let table = String(match.output.1).lowercased()
            names[table] = table
            if let alias = match.output.2.map({ String($0).lowercased() }), !keywords.contains(alias) { names[alias] = table }
        }
        return names
    }

    /// One line of SQLite's `EXPLAIN QUERY PLAN`: steps of one (sub)query share a parent.
    struct SQLiteStep {
        let id: Int64
        let parent: Int64
        let detail: String
    }

    /// SQLite: a scan of a growing table, or a search of one that binds only the tenant (every row of a tenant) unless
    /// a `LIMIT` stops it in the index's order (its query sorts nothing for `ORDER BY`).
    static func sqliteFindings(sql: String, plan: [SQLiteStep], growing: Set<String>) -> [String] {
        let names = tableNames(in: sql)
        let hasLimit = sql.range(of: #"\bLIMIT\b"#, options: [.regularExpression, .caseInsensitive]) != nil
        var findings: [String] = []
        for step in plan {
            guard let match = step.detail.firstMatch(of: #/^(SCAN|SEARCH) ([a-z_]+)(.*)$/#) else { continue }
            let name = String(match.output.2)
            guard let table = names[name], growing.contains(table) else { continue }
            let sortsAfter = plan.contains { $0.parent == step.parent && $0.detail.hasPrefix("USE TEMP B-TREE FOR ORDER BY") }
            if match.output.1 == "SCAN" {
                findings.append("reads every row of \(table): \(step.detail)")
            } else if step.detail.hasSuffix("(tenant=?)") && !(hasLimit && !sortsAfter) {
                findings.append("reads every row of a tenant in \(table): \(step.detail)")
            }
        }
        return findings
    }

    /// PostgreSQL (`EXPLAIN (FORMAT JSON)`'s plan): a sequential scan of a growing table, an index read whole, or an
    /// index read by the tenant alone unless a `Limit` above stops it in the index's order.
    static func postgresFindings(plan: [String: Any], growing: Set<String>, limited: Bool = false) -> [String] {
        var findings: [String] = []
        let type = plan["Node Type"] as? String ?? ""
        let relation = plan["Relation Name"] as? String
        let children = plan["Plans"] as? [[String: Any]] ?? []
        if let relation, growing.contains(relation) {
            let conditions = ([plan["Index Cond"]] + children.map { $0["Index Cond"] }).compactMap { $0 as? String }
            switch type {
            case "Seq Scan":
                findings.append("reads every row of \(relation) (Seq Scan)")
            case "Index Scan", "Index Only Scan", "Bitmap Heap Scan":
                let columns = Set(conditions.flatMap(comparedColumns))
                if columns.isEmpty && !(limited && plan["Filter"] == nil) {
                    findings.append("reads every row of \(relation) through \(plan["Index Name"] ?? "an index") (\(type))")
                } else if columns == ["tenant"] && !limited && !backlogIndexes.contains(plan["Index Name"] as? String ?? "") {
                    findings.append("reads every row of a tenant in \(relation): \(conditions.joined(separator: " AND "))")
                }
            default: break
            }
        }
        let stopsEarly = type == "Limit" || (limited && type != "Sort" && type != "Aggregate" && type != "Hash")
        for child in children { findings += postgresFindings(plan: child, growing: growing, limited: stopsEarly) }
        return findings
    }

    /// A PostgreSQL plan on one line: each node with its table, index, condition and filter, children in brackets.
    static func describe(_ plan: [String: Any]) -> String {
        var text = plan["Node Type"] as? String ?? "?"
        if let relation = plan["Relation Name"] as? String { text += " on \(relation)" }
        if let index = plan["Index Name"] as? String { text += " using \(index)" }
        if let condition = plan["Index Cond"] as? String { text += " cond \(condition)" }
        if let filter = plan["Filter"] as? String { text += " filter \(filter)" }
        let children = plan["Plans"] as? [[String: Any]] ?? []
        return children.isEmpty ? text : text + " [" + children.map(describe).joined(separator: "; ") + "]"
    }

    /// The columns an index condition compares (`tenant` of `(tenant = 'shop'::text)`).
    static func comparedColumns(_ condition: String) -> [String] {
        condition.matches(of: #/\(?(?:[a-z_]+\.)?([a-z_]+) (?:=|<|>|<=|>=|<>)/#).map { String($0.output.1) }
    }
}
