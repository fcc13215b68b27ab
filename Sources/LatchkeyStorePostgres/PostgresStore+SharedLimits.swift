import Foundation
import LatchkeyStore
import PostgresNIO
import Synchronization

/// Rate limits and challenge caps every instance counts together: each reconciles its own counting here every second or
/// so, on one connection. Time is the database's clock, so instances whose clocks differ agree on how full a bucket is.
extension PostgresStore: SharedLimitsStore {
    /// Three statements on one connection, none in a transaction: the draws, the full buckets' removal with the read
    /// of the empty ones, and the other instances' pending challenges.
    public func reconcileLimits(_ report: LimitReport) async throws -> LimitSnapshot {
        let instance = instance
        return try await withConnection { connection in
            var buckets = try await Self.draw(report.draws, on: connection)
            for (client, tokens) in try await Self.emptyBuckets(on: connection) where buckets[client] == nil { buckets[client] = tokens }
            let (perClient, perTenant) = try await Self.pendingChallenges(
                notOf: instance, threshold: report.pendingThreshold, on: connection)
            return LimitSnapshot(buckets: buckets, pendingElsewhere: perClient, pendingElsewhereByTenant: perTenant)
        }
    }

    /// Takes `draws` from their shared buckets (made full for a client new to them), in one `INSERT ... ON CONFLICT`
    /// over arrays, in key order so that two instances drawing on the same buckets lock them in the same order; the
    /// tokens each holds after.
    private static func draw(_ draws: [LimitReport.Draw], on connection: PostgresConnection) async throws -> [LimitedClient: Double] {
        guard !draws.isEmpty else { return [:] }
        let sorted = draws.sorted { ($0.client.tenant, $0.client.client) < ($1.client.tenant, $1.client.client) }
        let query: PostgresQuery = """
            INSERT INTO rate_limit_buckets AS b (tenant, client, tokens, updated_at, rate, burst)
            SELECT d.tenant, d.client, greatest(-d.burst, d.burst - d.taken), extract(epoch FROM clock_timestamp()), d.rate, d.burst
            FROM unnest(\(sorted.map(\.client.tenant.rawValue))::text[], \(sorted.map(\.client.client))::text[],
                \(sorted.map(\.tokens))::float8[], \(sorted.map(\.rate))::float8[], \(sorted.map(\.burst))::float8[])
                WITH ORDINALITY AS d(tenant, client, taken, rate, burst, position)
            ORDER BY d.position
            ON CONFLICT (tenant, client) DO UPDATE SET
                tokens = greatest(-excluded.burst,
                    least(excluded.burst, b.tokens + greatest(0, excluded.updated_at - b.updated_at) * excluded.rate)
                    - (excluded.burst - excluded.tokens)),
                updated_at = excluded.updated_at, rate = excluded.rate, burst = excluded.burst
            RETURNING tenant, client, tokens
            """
        return Dictionary(try await rows(query, on: connection, bucket).compactMap { client, tokens in client.map { ($0, tokens) } }) { a, _ in a }
    }

    /// Removes the buckets that refilled to full, and reads those with less than one token now.
    private static func emptyBuckets(on connection: PostgresConnection) async throws -> [(LimitedClient, Double)] {
        let refilled = "tokens + greatest(0, extract(epoch FROM clock_timestamp()) - updated_at) * rate"
        try await execute(PostgresQuery(unsafeSQL: "DELETE FROM rate_limit_buckets WHERE \(refilled) >= burst"), on: connection)
        let empty = try await rows(
            PostgresQuery(unsafeSQL: "SELECT tenant, client, \(refilled) FROM rate_limit_buckets WHERE \(refilled) < 1"), on: connection, bucket)
        return empty.compactMap { client, tokens in client.map { ($0, tokens) } }
    }

    /// The challenges pending that instances other than `instance` issued: of each client with `threshold` or more
    /// (one scan, grouped per client and per tenant), and of each tenant.
    private static func pendingChallenges(
        notOf instance: String, threshold: Int, on connection: PostgresConnection
    ) async throws -> (perClient: [LimitedClient: Int], perTenant: [TenantID: Int]) {
        let counts = try await rows("""
            SELECT tenant, client, GROUPING(client) = 1, count(*) FROM pending_ceremonies
            WHERE instance IS DISTINCT FROM \(instance) AND expires_at > now()
            GROUP BY GROUPING SETS ((tenant, client), (tenant))
            HAVING GROUPING(client) = 1 OR (client IS NOT NULL AND count(*) >= \(threshold))
            """, on: connection) { row in
            (try row.next(String.self), try row.next(String?.self), try row.next(Bool.self), try row.next(Int.self))
        }
        var perClient: [LimitedClient: Int] = [:]
        var perTenant: [TenantID: Int] = [:]
        for (tenant, client, isTenantTotal, count) in counts {
            guard let tenant = TenantID(tenant) else { continue }
            if isTenantTotal {
                perTenant[tenant] = count
            } else if let client {
                perClient[LimitedClient(tenant: tenant, client: client)] = count
            }
        }
        return (perClient, perTenant)
    }

    /// A `tenant, client, tokens` row; nil for a tenant that is not a tenant's name (none is written).
    private static func bucket(_ row: inout ColumnReader) throws -> (LimitedClient?, Double) {
        let tenant = TenantID(try row.next(String.self))
        let client = try row.next(String.self)
        return (tenant.map { LimitedClient(tenant: $0, client: client) }, try row.next(Double.self))
    }

    /// A name no other instance on the database has at once: the host, the process and the store's number in it.
    static func newInstanceName() -> String {
        let number = openedStores.add(1, ordering: .relaxed).newValue
        var name = [CChar](repeating: 0, count: 256)
        let host = gethostname(&name, name.count - 1) == 0
            ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "unknown"
        return "\(host)/\(getpid())/\(number)"
    }

    private static let openedStores = Atomic<Int>(0)
}
