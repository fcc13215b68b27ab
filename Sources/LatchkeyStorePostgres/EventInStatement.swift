import Foundation
import LatchkeyStore
import PostgresNIO

/// One security event written by the statement that makes its change, as CTEs that follow the change's own: the event,
/// its statistics and its webhook deliveries, only when the change's CTE returned a row. A change and its event then
/// cost one round trip where a transaction costs five (`BEGIN`, the change, the event, its statistics, `COMMIT`).
///
/// It writes what ``PostgresStore/insert(_:of:outbox:on:)`` writes for one event, in the same order: with receivers,
/// the user's delivery-order lock before the event draws its sequence number; the statistics under the tenant's shared
/// statistics lock. An event whose statistics change a user's row (``EventStatistics/userChange``) goes through
/// ``PostgresStore/insert(_:of:outbox:on:)`` instead: ``canWrite(_:)`` says which.
struct EventInStatement {
    /// How many parameters ``sql(after:tenant:first:)`` numbers.
    static let parameterCount = 23

    static let dataTypes: [PostgresDataType] = [
        .text, .text, .timestamptz, .bytea, .bytea, .bytea, .bytea, .text, .text, .text, .text, .text, .bytea, .text, .bool,
        .bytea, .timestamptz, .textArray, .text, .int2, .textArray, .textArray, .int8Array,
    ]

    let event: SecurityEvent?
    let statistics: EventStatistics?
    let outbox: WebhookOutbox
    let tenant: TenantID

    init(_ event: SecurityEvent?, outbox: WebhookOutbox, tenant: TenantID) {
        self.event = event
        self.outbox = outbox
        self.tenant = tenant
        statistics = event.map(EventStatistics.init(of:))
    }

    /// Whether these CTEs can write `events` (none, or one whose statistics change no user's row).
    static func canWrite(_ events: [SecurityEvent]) -> Bool {
        events.count < 2 && events.allSatisfy { EventStatistics(of: $0).userChange == nil }
    }

    /// The CTEs, each starting with a comma, that write the event when `source` (a CTE of the statement) returned a row;
    /// `tenant` is the SQL of the tenant's ID, and the event's parameters are numbered from `first`.
    static func sql(after source: String, tenant: String, first: Int) -> String {
        let p = (0..<parameterCount).map { "$\(first + $0)" }
        let changed = "EXISTS (SELECT FROM \(source))", receivers = "cardinality(\(p[17])::text[])"
        return """
            , serialized AS (
                SELECT \(PostgresStore.deliveryOrderLock(key: p[15])) FROM (SELECT) AS one WHERE \(receivers) > 0 AND \(changed)
            ), event AS (
                -- The qualification, so the lock, is evaluated before the row draws its sequence number.
                INSERT INTO security_events (id, type, occurred_at, user_handle, username, credential_id, aaguid,
                    authenticator_name, client_address, user_agent, request_id, actor, detail, reason, backup_eligible, tenant)
                SELECT \(p[0...14].joined(separator: ", ")), \(tenant)
                WHERE \(p[0])::text IS NOT NULL AND \(changed) AND (\(receivers) = 0 OR EXISTS (SELECT FROM serialized))
                RETURNING id, occurred_at, user_handle
            ), statistics_locked AS (
                SELECT \(PostgresStore.sharedStatisticsLock(tenant: tenant)) FROM event WHERE cardinality(\(p[20])::text[]) > 0
            ), counted AS (
                INSERT INTO daily_statistics (tenant, day, metric, dimension, slot, count)
                SELECT \(tenant), \(p[18]), metric, dimension, \(p[19]), amount
                FROM event, statistics_locked, unnest(\(p[20])::text[], \(p[21])::text[], \(p[22])::bigint[]) AS c(metric, dimension, amount)
                ON CONFLICT (tenant, day, metric, dimension, slot) DO UPDATE SET count = daily_statistics.count + EXCLUDED.count
            ), deliveries AS (
                INSERT INTO webhook_deliveries (event_id, receiver, ordering_key, state, created_at, next_attempt_at, retry_until, tenant)
                SELECT event.id, receiver, coalesce(event.user_handle, ''::bytea), 'pending', event.occurred_at, event.occurred_at,
                    \(p[16]), \(tenant)
                FROM event, unnest(\(p[17])::text[]) AS receiver
            )
            """
    }

    /// Appends the event's ``parameterCount`` values, in ``sql(after:tenant:first:)``'s order.
    func append(to bindings: inout PostgresBindings) {
        bindings.append(event?.id)
        bindings.append(event?.type.rawValue)
        bindings.append(event?.occurredAt)
        bindings.append(event?.userHandle?.bytea)
        bindings.append(event?.username?.utf8Bytea)
        bindings.append(event?.credentialID?.bytea)
        bindings.append(event?.aaguid?.bytea)
        bindings.append(event?.authenticatorName)
        bindings.append(event?.clientAddress)
        bindings.append(event?.userAgent)
        bindings.append(event?.requestID)
        bindings.append(event?.actor.storedText)
        bindings.append(event?.detail?.utf8Bytea)
        bindings.append(event?.reason)
        bindings.append(event?.backupEligible)
        // Events of no user are ordered per tenant, each tenant's under a lock of its own (as in `insert`).
        bindings.append((event?.userHandle ?? Array("tenant \(tenant.rawValue)".utf8)).bytea)
        bindings.append((event?.occurredAt ?? Date()).addingTimeInterval(outbox.retryWindow))
        bindings.append(event == nil ? [] : outbox.receivers)
        bindings.append((statistics?.day ?? StatisticsDay(Date())).description)
        bindings.append(PostgresStore.statisticsSlot())
        bindings.append(statistics?.counts.map(\.metric.rawValue) ?? [])
        bindings.append(statistics?.counts.map(\.dimension) ?? [])
        bindings.append(statistics?.counts.map(\.amount) ?? [])
    }
}
