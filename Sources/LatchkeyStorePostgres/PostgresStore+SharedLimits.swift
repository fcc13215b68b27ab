import Foundation
import LatchkeyStore
import PostgresNIO
import Synchronization

/// Rate limits and challenge caps every instance counts together: each reconciles its own counting here every second or
/// so, on one connection. Time is the database's clock, so instances whose clocks differ agree on how full a bucket is.
extension PostgresStore: SharedLimitsStore {
    /// Three statements, none in a transaction: the draws (one `INSERT ... ON CONFLICT` over the report's arrays, in
    /// key order so that two instances drawing on the same buckets lock them in the same order), the removal of full
    /// buckets and the read of empty ones, and the count of the other instances' pending challenges (one scan, grouped
    /// twice).
    public func reconcileLimits(_ report: LimitReport) async throws -> LimitSnapshot {
        let draws = report.draws.sorted { ($0.client.tenant, $0.client.client) < ($1.client.tenant, $1.client.client) }
        let threshold = report.pendingThreshold
        let instance = instance
        return try await withConnection { connection in
            var buckets: [LimitedClient: Double] = [:]
            if !draws.isEmpty {
                let query: PostgresQuery = """
                    INSERT INTO rate_limit_buckets AS b (tenant, client, tokens, updated_at, rate, burst)
                    SELECT d.tenant, d.client, greatest(-d.burst, d.burst - d.taken), extract(epoch FROM clock_timestamp()), d.rate, d.burst
                    FROM unnest(\(draws.map(\.client.tenant.rawValue))::text[], \(draws.map(\.client.client))::text[],
                        \(draws.map(\.tokens))::float8[], \(draws.map(\.rate))::float8[], \(draws.map(\.burst))::float8[])
                        WITH ORDINALITY AS d(tenant, client, taken, rate, burst, position)
                    ORDER BY d.position
                    ON CONFLICT (tenant, client) DO UPDATE SET
                        tokens = greatest(-excluded.burst,
                            least(excluded.burst, b.tokens + greatest(0, excluded.updated_at - b.updated_at) * excluded.rate)
                            - (excluded.burst - excluded.tokens)),
                        updated_at = excluded.updated_at, rate = excluded.rate, burst = excluded.burst
                    RETURNING tenant, client, tokens
                    """
                for case (let client?, let tokens) in try await Self.rows(query, on: connection, Self.bucket) { buckets[client] = tokens }
            }
            try await Self.execute("""
                DELETE FROM rate_limit_buckets
                WHERE tokens + greatest(0, extract(epoch FROM clock_timestamp()) - updated_at) * rate >= burst
                """, on: connection)
            let empty = try await Self.rows("""
                SELECT tenant, client, tokens + greatest(0, extract(epoch FROM clock_timestamp()) - updated_at) * rate
                FROM rate_limit_buckets
                WHERE tokens + greatest(0, extract(epoch FROM clock_timestamp()) - updated_at) * rate < 1
                """, on: connection, Self.bucket)
            for case (let client?, let tokens) in empty where buckets[client] == nil { buckets[client] = tokens }
            var pendingElsewhere: [LimitedClient: Int] = [:]
            var pendingByTenant: [TenantID: Int] = [:]
            let counts = try await Self.rows("""
                SELECT tenant, client, GROUPING(client) = 1, count(*) FROM pending_ceremonies
                WHERE instance IS DISTINCT FROM \(instance) AND expires_at > now()
                GROUP BY GROUPING SETS ((tenant, client), (tenant))
                HAVING GROUPING(client) = 1 OR (client IS NOT NULL AND count(*) >= \(threshold))
                """, on: connection) { row in
                (try row.next(String.self), try row.next(String?.self), try row.next(Bool.self), try row.next(Int.self))
            }
            for (tenant, client, isTenantTotal, count) in counts {
                guard let tenant = TenantID(tenant) else { continue }
                if isTenantTotal {
                    pendingByTenant[tenant] = count
                } else if let client {
                    pendingElsewhere[LimitedClient(tenant: tenant, client: client)] = count
                }
            }
            return LimitSnapshot(buckets: buckets, pendingElsewhere: pendingElsewhere, pendingElsewhereByTenant: pendingByTenant)
        }
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
