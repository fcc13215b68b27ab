import Foundation
import LatchkeyStore
import LatchkeyStoreSQL
import PostgresNIO

/// The audit log and the webhook outbox, shared by every instance.
///
/// Sending is coordinated by leases: a claim takes the due deliveries with `FOR UPDATE SKIP LOCKED`
/// (so two instances claiming at once take different rows and never wait for each other) and
/// writes its owner and lease end in the same statement. A delivery is due only while no lease on
/// it is running, so exactly one instance sends it at a time, and when a sender dies its lease
/// runs out and the next claim takes the delivery over.
extension PostgresStore {
    static let eventColumns = """
        sequence, id, type, occurred_at, user_handle, username, credential_id, aaguid, authenticator_name, client_address, \
        user_agent, request_id, actor, detail, reason, backup_eligible
        """
    private static let deliveryColumns = """
        d.id, d.event_id, d.receiver, d.state, d.attempts, d.created_at, d.next_attempt_at, d.retry_until, d.delivered_at, d.last_error
        """

    // MARK: Writing, inside a change's transaction

    /// The class of the advisory locks that keep each ordering key's deliveries in commit order (`lkwd`).
    static let deliveryOrderLockClass: Int32 = 0x6C6B_7764

    /// The lock on one user's ordering key that a transaction takes, when there are webhook receivers, before it writes
    /// that user's events, and holds until it ends: of two transactions writing events for one user, the one that takes
    /// it first draws the lower event sequence numbers and delivery IDs and commits first, so the user's events are
    /// listed, claimed and sent in the order their changes committed, and a claim never sees a later delivery while an
    /// earlier one is still uncommitted. A transaction takes it after the change's own writes and writes one user's
    /// events only, so it is its last lock; the sign-in's single statement may end its replaced sessions after taking
    /// it, and a deadlock that makes (a sign-out of such a session at that moment) is rolled back by PostgreSQL and
    /// made again (`busy`). `key` is the SQL of the key's bytes.
    static func deliveryOrderLock(key: String) -> String {
        "pg_advisory_xact_lock(\(deliveryOrderLockClass), hashtext(encode(\(key), 'hex')))"
    }

    /// Writes `tenant`'s `events` and one pending delivery of each per receiver of `outbox`, one statement per event,
    /// inside the caller's transaction; with receivers, after taking each user's ``deliveryOrderLock(key:)``.
    static func insert(
        _ events: [SecurityEvent], of tenant: TenantID, outbox: WebhookOutbox, on connection: PostgresConnection
    ) async throws {
        if !outbox.receivers.isEmpty {
            var locked: Set<[UInt8]> = []
            // Events of no user are ordered per tenant: each tenant's under a lock of its own.
            let tenantKey = Array("tenant \(tenant.rawValue)".utf8)
            for key in events.map({ $0.userHandle ?? tenantKey }) where locked.insert(key).inserted {
                var lock = PostgresQuery(unsafeSQL: "SELECT " + deliveryOrderLock(key: "$1::bytea"))
                lock.binds.append(ByteBuffer(bytes: key))
                try await execute(lock, on: connection)
            }
        }
        for event in events {
            let values: PostgresQuery = """
                INSERT INTO security_events (id, type, occurred_at, user_handle, username, credential_id, aaguid, authenticator_name,
                    client_address, user_agent, request_id, actor, detail, reason, backup_eligible, tenant)
                VALUES (\(event.id), \(event.type.rawValue), \(event.occurredAt), \(event.userHandle?.bytea), \(event.username?.utf8Bytea),
                    \(event.credentialID?.bytea), \(event.aaguid?.bytea), \(event.authenticatorName), \(event.clientAddress),
                    \(event.userAgent), \(event.requestID), \(event.actor.storedText), \(event.detail?.utf8Bytea), \(event.reason),
                    \(event.backupEligible), \(tenant))
                """
            if outbox.receivers.isEmpty {
                try await execute(values, on: connection)
                try await countStatistics(of: event, of: tenant, on: connection)
                continue
            }
            var query = PostgresQuery(unsafeSQL: "WITH event AS (")
            query.sql += values.sql
            query.binds = values.binds
            let key = "$\(query.binds.count + 1)::bytea"
            query.sql += """
                 RETURNING id, occurred_at, tenant)
                INSERT INTO webhook_deliveries (event_id, receiver, ordering_key, state, created_at, next_attempt_at, retry_until, tenant)
                SELECT event.id, receiver, \(key), 'pending', event.occurred_at, event.occurred_at, $\(query.binds.count + 2), event.tenant
                FROM event, unnest($\(query.binds.count + 3)::text[]) AS receiver
                """
            query.binds.append(ByteBuffer(bytes: event.userHandle ?? []))
            query.binds.append(event.occurredAt.addingTimeInterval(outbox.retryWindow))
            query.binds.append(outbox.receivers)
            try await execute(query, on: connection)
            try await countStatistics(of: event, of: tenant, on: connection)
        }
    }

    /// Runs `query` and, when it returned a row, writes `events` in its transaction; returns how
    /// many rows it returned (`RETURNING 1`: how many it changed).
    func count(_ query: PostgresQuery, recording events: [SecurityEvent] = [], function: String = #function) async throws -> Int {
        guard !events.isEmpty else { return try await rows(query, function: function) { _ in true }.count }
        return try await count(query, recording: { _ in events }, function: function)
    }

    /// Runs `query` and reads its first row, if any, with `read`; when there is one, writes `events` in its transaction.
    func firstRow<T: Sendable>(
        _ query: PostgresQuery, recording events: [SecurityEvent], function: String = #function,
        _ read: @escaping @Sendable (inout ColumnReader) throws -> T
    ) async throws -> T? {
        let outbox = webhooks, tenant = tenant
        return try await transaction(function) { connection in
            let first = try await Self.rows(query, on: connection, read).first
            if first != nil { try await Self.insert(events, of: tenant, outbox: outbox, on: connection) }
            return first
        }
    }

    /// ``count(_:recording:)`` with the events made of how many rows `query` returned.
    func count(
        _ query: PostgresQuery, recording events: @escaping @Sendable (_ changed: Int) -> [SecurityEvent], function: String = #function
    ) async throws -> Int {
        let outbox = webhooks, tenant = tenant
        return try await transaction(function) { connection in
            let changed = try await Self.rows(query, on: connection) { _ in true }.count
            if changed > 0 { try await Self.insert(events(changed), of: tenant, outbox: outbox, on: connection) }
            return changed
        }
    }

    @discardableResult
    public func recordEvent(_ event: SecurityEvent, whileItsUserExists: Bool) async throws -> Bool {
        let outbox = webhooks, tenant = tenant
        // A transaction: with receivers, the user's ordering lock is held until the event is written; the user's
        // row is held against a deletion (FOR SHARE) until then too, so a deletion commits before or after it.
        return try await transaction { connection in
            if whileItsUserExists, let handle = event.userHandle {
                let found = try await Self.rows(
                    "SELECT 1 FROM users WHERE handle = \(handle.bytea) AND tenant = \(tenant) FOR SHARE", on: connection) { _ in true }
                guard !found.isEmpty else { return false }
            }
            try await Self.insert([event], of: tenant, outbox: outbox, on: connection)
            return true
        }
    }

    // MARK: Reading events

    /// Unnamed statements are planned with their values, so the `IS NULL` tests fold away and a
    /// user's page walks the user index.
    public func securityEvents(_ query: SecurityEventQuery) async throws -> [SecurityEvent] {
        let types = query.types.map(\.rawValue)
        return try await rows("""
            SELECT \(unescaped: Self.eventColumns) FROM security_events
            WHERE tenant = \(tenant) AND (\(query.userHandle?.bytea)::bytea IS NULL OR user_handle = \(query.userHandle?.bytea))
              AND (\(query.since)::timestamptz IS NULL OR occurred_at >= \(query.since))
              AND (\(query.before)::bigint IS NULL OR sequence < \(query.before))
              AND (cardinality(\(types)::text[]) = 0 OR type = ANY(\(types)::text[]))
            ORDER BY sequence DESC LIMIT \(Int64(query.limit))
            """) { try Self.event(&$0) }
    }

    public func securityEvent(id: String) async throws -> SecurityEvent? {
        try await firstRow("SELECT \(unescaped: Self.eventColumns) FROM security_events WHERE id = \(id) AND tenant = \(tenant)") { try Self.event(&$0) }
    }

    // MARK: Delivering

    public func claimWebhookDeliveries(owner: String, now: Date, leaseUntil: Date, limit: Int, receivers: WebhookReceiverSelection)
        async throws -> [(delivery: WebhookDelivery, event: SecurityEvent)]
    {
        let (only, excluded) = receivers.parts
        let eventColumns = Self.eventColumns.split(separator: ",").map { "e." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        let claimed = try await rows("""
            WITH due AS (
                SELECT d.id FROM webhook_deliveries d
                WHERE d.tenant = \(tenant) AND d.state = 'pending' AND d.next_attempt_at <= \(now) AND (d.lease_until IS NULL OR d.lease_until <= \(now))
                  AND (\(only)::text IS NULL OR d.receiver = \(only)) AND NOT (d.receiver = ANY(\(excluded)::text[]))
                  AND NOT EXISTS (
                    SELECT 1 FROM webhook_deliveries p
                    WHERE p.tenant = d.tenant AND p.state = 'pending' AND p.receiver = d.receiver AND p.ordering_key = d.ordering_key AND p.id < d.id)
                ORDER BY d.id LIMIT \(Int64(limit))
                FOR UPDATE SKIP LOCKED
            )
            UPDATE webhook_deliveries d SET lease_owner = \(owner), lease_until = \(leaseUntil)
            FROM due, security_events e
            WHERE d.id = due.id AND e.id = d.event_id AND e.tenant = d.tenant
            RETURNING \(unescaped: Self.deliveryColumns), \(unescaped: eventColumns.joined(separator: ", "))
            """) { row in (delivery: try Self.delivery(&row), event: try Self.event(&row)) }
        return claimed.sorted { $0.delivery.id < $1.delivery.id }
    }

    /// A delivery's ID is unique across tenants and its lease owner is one dispatcher's, so the lease alone names it.
    public func finishWebhookDelivery(id: Int64, owner: String, outcome: WebhookAttemptOutcome, now: Date) async throws -> Bool {
        var query: PostgresQuery
        let counted: StatisticsMetric?
        switch outcome {
        case .delivered:
            query = """
                WITH finished AS (
                    UPDATE webhook_deliveries SET state = 'delivered', attempts = attempts + 1, delivered_at = \(now), last_error = NULL,
                        lease_owner = NULL, lease_until = NULL
                    WHERE id = \(id) AND lease_owner = \(owner) AND state = 'pending' RETURNING tenant)
                """
            counted = .webhooksDelivered
        case .retry(let at, let error):
            query = """
                WITH finished AS (
                    UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = \(at), last_error = \(error),
                        lease_owner = NULL, lease_until = NULL
                    WHERE id = \(id) AND lease_owner = \(owner) AND state = 'pending' RETURNING tenant)
                """
            counted = nil
        case .dead(let error):
            query = """
                WITH finished AS (
                    UPDATE webhook_deliveries SET state = 'dead', attempts = attempts + 1, last_error = \(error),
                        lease_owner = NULL, lease_until = NULL
                    WHERE id = \(id) AND lease_owner = \(owner) AND state = 'pending' RETURNING tenant)
                """
            counted = .webhooksDead
        }
        // The outcome's count in the same statement as the attempt.
        if let counted { query.sql += Self.countWebhookOutcome(counted, day: StatisticsDay(now)) }
        query.sql += " SELECT 1 FROM finished"
        return try await rows(query) { _ in true }.count == 1
    }

    public func webhookDeliveries(state: WebhookDeliveryState?, before: Int64?, limit: Int) async throws -> [WebhookDelivery] {
        // Two texts, so that each reads an index in the page's order: the tenant's deliveries, or those in one state.
        let before = before ?? Int64.max
        let query: PostgresQuery = if let state {
            """
            SELECT \(unescaped: Self.deliveryColumns) FROM webhook_deliveries d
            WHERE d.tenant = \(tenant) AND d.state = \(state.rawValue) AND d.id < \(before) ORDER BY d.id DESC LIMIT \(Int64(limit))
            """
        } else {
            """
            SELECT \(unescaped: Self.deliveryColumns) FROM webhook_deliveries d
            WHERE d.tenant = \(tenant) AND d.id < \(before) ORDER BY d.id DESC LIMIT \(Int64(limit))
            """
        }
        return try await rows(query) { try Self.delivery(&$0) }
    }

    public func retryWebhookDelivery(id: Int64, now: Date, retryUntil: Date) async throws -> WebhookDelivery? {
        let tenant = tenant
        return try await transaction { connection in
            try await Self.execute("""
                UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = \(now), retry_until = \(retryUntil),
                    lease_owner = NULL, lease_until = NULL
                WHERE id = \(id) AND tenant = \(tenant) AND (state <> 'pending' OR lease_until IS NULL OR lease_until <= \(now))
                """, on: connection)
            return try await Self.rows(
                "SELECT \(unescaped: Self.deliveryColumns) FROM webhook_deliveries d WHERE d.id = \(id) AND d.tenant = \(tenant)",
                on: connection
            ) { try Self.delivery(&$0) }.first
        }
    }

    public func webhookOutboxStatus() async throws -> WebhookOutboxStatus {
        try await firstRow("""
            SELECT count(*), min(created_at) FROM webhook_deliveries WHERE tenant = \(tenant) AND state = 'pending'
            """) { row in
            WebhookOutboxStatus(depth: Int(try row.next(Int64.self)), oldestPendingAt: try row.next(Date?.self))
        } ?? WebhookOutboxStatus(depth: 0, oldestPendingAt: nil)
    }

    public func renameWebhookReceiver(_ receiver: String, to name: String) async throws -> Int {
        try await firstRow("""
            WITH moved AS (UPDATE webhook_deliveries SET receiver = \(name) WHERE receiver = \(receiver) AND tenant = \(tenant) AND state = 'pending'
                RETURNING 1)
            SELECT count(*) FROM moved
            """) { Int(try $0.next(Int64.self)) } ?? 0
    }

    public func purgeSecurityEvents(eventsBefore: Date, deliveriesBefore: Date) async throws {
        let purges: [PostgresQuery] = [
            """
            WITH old AS (
                SELECT id FROM webhook_deliveries WHERE created_at < \(eventsBefore) LIMIT \(Self.purgeBatchSize) FOR UPDATE SKIP LOCKED
            ), deleted AS (DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM old) RETURNING 1)
            SELECT count(*) FROM deleted
            """,
            """
            WITH old AS (
                SELECT id FROM webhook_deliveries WHERE state = 'delivered' AND delivered_at < \(deliveriesBefore)
                LIMIT \(Self.purgeBatchSize) FOR UPDATE SKIP LOCKED
            ), deleted AS (DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM old) RETURNING 1)
            SELECT count(*) FROM deleted
            """,
            """
            WITH oldest AS (
                SELECT sequence, occurred_at FROM security_events ORDER BY sequence LIMIT \(Self.purgeBatchSize)
            ), old AS (
                SELECT sequence FROM oldest WHERE occurred_at < \(eventsBefore)
            ), deleted AS (DELETE FROM security_events WHERE sequence IN (SELECT sequence FROM old) RETURNING 1)
            SELECT count(*) FROM deleted \(unescaped: PlannerNote.oldestEventsFirst)
            """,
        ]
        try await policy.call(#function) {
            for purge in purges {
                while try await leasingConnection({ try await Self.rows(purge, on: $0) { try $0.next(Int64.self) }.first }) ?? 0
                    >= Self.purgeBatchSize
                {
                    await Task.yield()
                }
            }
        }
    }

    // MARK: Rows

    static func event(_ row: inout ColumnReader) throws -> SecurityEvent {
        let sequence = try row.next(Int64.self)
        let id = try row.next(String.self)
        let typeText = try row.next(String.self)
        guard let type = SecurityEventType(rawValue: typeText) else {
            throw StoreError(.database, "the store holds an event of unknown type \"\(typeText)\"")
        }
        return SecurityEvent(
            id: id, type: type, occurredAt: try row.next(Date.self), userHandle: try row.optionalBytes(),
            username: try row.optionalUTF8(), credentialID: try row.optionalBytes(), aaguid: try row.optionalBytes(),
            authenticatorName: try row.next(String?.self), clientAddress: try row.next(String?.self),
            userAgent: try row.next(String?.self), requestID: try row.next(String?.self),
            actor: SecurityEventActor(storedText: try row.next(String.self)), detail: try row.optionalUTF8(),
            reason: try row.next(String?.self), backupEligible: try row.next(Bool?.self), sequence: sequence)
    }

    private static func delivery(_ row: inout ColumnReader) throws -> WebhookDelivery {
        let id = try row.next(Int64.self)
        let eventID = try row.next(String.self)
        let receiver = try row.next(String.self)
        let state = WebhookDeliveryState(rawValue: try row.next(String.self)) ?? .pending
        return WebhookDelivery(
            id: id, eventID: eventID, receiver: receiver, state: state, attempts: Int(try row.next(Int32.self)),
            createdAt: try row.next(Date.self), nextAttemptAt: try row.next(Date.self), retryUntil: try row.next(Date.self),
            deliveredAt: try row.next(Date?.self), lastError: try row.next(String?.self))
    }
}
