import Foundation
import LatchkeyStore
import LatchkeyStoreSQL

/// The audit log and the webhook outbox.
extension SQLiteStore {
    static let eventColumns = """
        sequence, id, type, occurred_at, user_handle, username, credential_id, aaguid, authenticator_name, client_address, \
        user_agent, request_id, actor, detail, reason, backup_eligible
        """
    private static let insertEvent = """
        INSERT INTO security_events (id, type, occurred_at, user_handle, username, credential_id, aaguid, authenticator_name, \
        client_address, user_agent, request_id, actor, detail, reason, backup_eligible, tenant)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, current_tenant())
        """
    private static let insertDelivery = """
        INSERT INTO webhook_deliveries (event_id, receiver, ordering_key, state, created_at, next_attempt_at, retry_until, tenant)
        VALUES (?, ?, ?, 'pending', ?, ?, ?, current_tenant())
        """
    private static let eventByID = "SELECT \(eventColumns) FROM security_events WHERE id = ? AND tenant = current_tenant()"
    private static let deliveryColumns = """
        d.id, d.event_id, d.receiver, d.state, d.attempts, d.created_at, d.next_attempt_at, d.retry_until, d.delivered_at, d.last_error
        """
    /// The oldest pending delivery of each (receiver, user) whose time has come and whose lease,
    /// if any, has ended.
    private static let dueDeliveries = """
        SELECT \(deliveryColumns), \(eventColumns.split(separator: ",").map { "e." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: ", "))
        FROM webhook_deliveries d JOIN security_events e ON e.id = d.event_id AND e.tenant = d.tenant
        WHERE d.tenant = current_tenant() AND d.state = 'pending' AND d.next_attempt_at <= ?1 AND (d.lease_until IS NULL OR d.lease_until <= ?1)
          AND (?3 IS NULL OR d.receiver = ?3) AND d.receiver NOT IN (SELECT value FROM json_each(?4))
          AND NOT EXISTS (
            SELECT 1 FROM webhook_deliveries p
            WHERE p.state = 'pending' AND p.tenant = d.tenant AND p.receiver = d.receiver AND p.ordering_key = d.ordering_key AND p.id < d.id)
        ORDER BY d.id LIMIT ?2
        """
    private static let lease = "UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ? WHERE id = ? AND tenant = current_tenant()"
    private static let markDelivered = """
        UPDATE webhook_deliveries SET state = 'delivered', attempts = attempts + 1, delivered_at = ?1, last_error = NULL,
            lease_owner = NULL, lease_until = NULL
        WHERE id = ?2 AND tenant = current_tenant() AND lease_owner = ?3 AND state = 'pending'
        """
    private static let markRetry = """
        UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = ?1, last_error = ?2, lease_owner = NULL, lease_until = NULL
        WHERE id = ?3 AND tenant = current_tenant() AND lease_owner = ?4 AND state = 'pending'
        """
    private static let markDead = """
        UPDATE webhook_deliveries SET state = 'dead', attempts = attempts + 1, last_error = ?1, lease_owner = NULL, lease_until = NULL
        WHERE id = ?2 AND tenant = current_tenant() AND lease_owner = ?3 AND state = 'pending'
        """
    private static let retryDelivery = """
        UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = ?1, retry_until = ?2, lease_owner = NULL, lease_until = NULL
        WHERE id = ?3 AND tenant = current_tenant() AND (state <> 'pending' OR lease_until IS NULL OR lease_until <= ?1)
        """
    private static let deliveryByID = "SELECT \(deliveryColumns) FROM webhook_deliveries d WHERE d.id = ? AND d.tenant = current_tenant()"
    private static let renameReceiver = "UPDATE webhook_deliveries SET receiver = ?2 WHERE receiver = ?1 AND tenant = current_tenant() AND state = 'pending'"
    private static let outboxStatus = "SELECT COUNT(*), MIN(created_at) FROM webhook_deliveries WHERE tenant = current_tenant() AND state = 'pending'"
    /// The oldest events by sequence (the order they were written in, so nearly that of their
    /// times), those of them before the cutoff: no time index, and never more than a batch read.
    private static let purgeEvents = """
        DELETE FROM security_events WHERE sequence IN (
            SELECT sequence FROM (SELECT sequence, occurred_at FROM security_events ORDER BY sequence LIMIT ?2) WHERE occurred_at < ?1)
        \(PlannerNote.oldestEventsFirst)
        """
    /// Deliveries made before the events' cutoff, through their creation index.
    private static let purgeOldDeliveries = """
        DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE created_at < ?1 LIMIT ?2)
        """
    /// Deliveries delivered before the deliveries' cutoff, through the index of delivered ones.
    private static let purgeDeliveredDeliveries = """
        DELETE FROM webhook_deliveries WHERE id IN (
            SELECT id FROM webhook_deliveries WHERE state = 'delivered' AND delivered_at < ?1 LIMIT ?2)
        """

    // MARK: Writing, inside a change's transaction

    /// Runs one statement and reads its first row, if any, with `read`; when there is one, writes `events` in its
    /// transaction.
    func firstRow<T>(
        _ sql: String, recording events: [SecurityEvent], function: String = #function, bind: (SQLiteStatement) throws -> Void,
        read: (SQLiteStatement) throws -> T
    ) async throws -> T? {
        try await withTransaction(function) { database in
            let first = try database.withStatement(sql) { row -> T? in
                try bind(row)
                guard try row.step() else { return nil }
                let value = try read(row)
                try row.finish()
                return value
            }
            if first != nil { try insert(events, into: database) }
            return first
        }
    }

    /// Writes `events` and one pending delivery of each per receiver.
    func insert(_ events: [SecurityEvent], into database: SQLiteConnection) throws {
        for event in events {
            try database.withStatement(Self.insertEvent) { statement in
                try statement.bind(
                    event.id, event.type.rawValue, event.occurredAt, event.userHandle, event.username, event.credentialID,
                    event.aaguid, event.authenticatorName, event.clientAddress, event.userAgent, event.requestID,
                    event.actor.storedText, event.detail, event.reason, event.backupEligible)
                do {
                    try statement.step()
                } catch is SQLiteConstraintError {
                    throw StoreError(.database, "an event with ID \(event.id) exists already")
                }
            }
            try Self.countStatistics(of: event, in: database)
            for receiver in webhooks.receivers {
                try database.withStatement(Self.insertDelivery) { statement in
                    try statement.bind(
                        event.id, receiver, event.userHandle ?? [], event.occurredAt, event.occurredAt,
                        event.occurredAt.addingTimeInterval(webhooks.retryWindow))
                    try statement.step()
                }
            }
        }
    }

    @discardableResult
    public func recordEvent(_ event: SecurityEvent, whileItsUserExists: Bool) async throws -> Bool {
        try await withTransaction { database in
            // SQLite has one writer at a time: the user read here stays until this transaction ends.
            if whileItsUserExists, let handle = event.userHandle {
                let exists = try database.withStatement("SELECT 1 FROM users WHERE handle = ? AND tenant = current_tenant()") { row in
                    try row.bind(handle)
                    return try row.step()
                }
                guard exists else { return false }
            }
            try insert([event], into: database)
            return true
        }
    }

    // MARK: Reading events

    public func securityEvents(_ query: SecurityEventQuery) async throws -> [SecurityEvent] {
        // Two texts, so that a user's page walks the user index.
        let userFilter = query.userHandle == nil ? "?1 IS NULL" : "user_handle = ?1"
        let sql = """
            SELECT \(Self.eventColumns) FROM security_events
            WHERE tenant = current_tenant() AND \(userFilter) AND (?2 IS NULL OR occurred_at >= ?2) AND (?3 IS NULL OR sequence < ?3)
              AND (?4 IS NULL OR instr(?4, ',' || type || ',') > 0)
            ORDER BY sequence DESC LIMIT ?5
            """
        let types = query.types.isEmpty ? nil : "," + query.types.map(\.rawValue).joined(separator: ",") + ","
        return try await withStatement(sql) { row in
            try row.bind(query.userHandle, query.since, query.before, types, Int64(query.limit))
            var events: [SecurityEvent] = []
            while try row.step() { events.append(try Self.event(row, from: 0)) }
            return events
        }
    }

    public func securityEvent(id: String) async throws -> SecurityEvent? {
        try await withStatement(Self.eventByID) { row in
            try row.bind(id)
            return try row.step() ? try Self.event(row, from: 0) : nil
        }
    }

    // MARK: Delivering

    public func claimWebhookDeliveries(owner: String, now: Date, leaseUntil: Date, limit: Int, receivers: WebhookReceiverSelection)
        async throws -> [(delivery: WebhookDelivery, event: SecurityEvent)]
    {
        let (only, excluded) = receivers.parts
        let excludedJSON = String(decoding: try JSONEncoder().encode(excluded), as: UTF8.self)
        return try await withTransaction { database in
            let due = try database.withStatement(Self.dueDeliveries) { row in
                try row.bind(now, Int64(limit), only, excludedJSON)
                var due: [(delivery: WebhookDelivery, event: SecurityEvent)] = []
                while try row.step() { due.append((Self.delivery(row), try Self.event(row, from: 10))) }
                return due
            }
            for claimed in due {
                try database.withStatement(Self.lease) { statement in
                    try statement.bind(owner, leaseUntil, claimed.delivery.id)
                    try statement.step()
                }
            }
            return due
        }
    }

    public func finishWebhookDelivery(id: Int64, owner: String, outcome: WebhookAttemptOutcome, now: Date) async throws -> Bool {
        try await withTransaction { database in
            switch outcome {
            case .delivered:
                try database.withStatement(Self.markDelivered) { statement in
                    try statement.bind(now, id, owner)
                    try statement.step()
                }
            case .retry(let at, let error):
                try database.withStatement(Self.markRetry) { statement in
                    try statement.bind(at, error, id, owner)
                    try statement.step()
                }
            case .dead(let error):
                try database.withStatement(Self.markDead) { statement in
                    try statement.bind(error, id, owner)
                    try statement.step()
                }
            }
            let finished = database.changes == 1
            let counted: StatisticsMetric? = switch outcome {
            case .delivered: .webhooksDelivered
            case .dead: .webhooksDead
            case .retry: nil
            }
            if finished, let counted { try Self.add(StatisticsCount(counted), on: StatisticsDay(now), in: database) }
            return finished
        }
    }

    public func webhookDeliveries(state: WebhookDeliveryState?, before: Int64?, limit: Int) async throws -> [WebhookDelivery] {
        // Two texts, so that each reads an index in the page's order: the tenant's deliveries, or those in one state.
        let stateFilter = state == nil ? "?1 IS NULL" : "d.state = ?1"
        return try await withStatement("""
            SELECT \(Self.deliveryColumns) FROM webhook_deliveries d
            WHERE d.tenant = current_tenant() AND \(stateFilter) AND d.id < ?2 ORDER BY d.id DESC LIMIT ?3
            """) { row in
            try row.bind(state?.rawValue, before ?? Int64.max, Int64(limit))
            var deliveries: [WebhookDelivery] = []
            while try row.step() { deliveries.append(Self.delivery(row)) }
            return deliveries
        }
    }

    public func retryWebhookDelivery(id: Int64, now: Date, retryUntil: Date) async throws -> WebhookDelivery? {
        try await withTransaction { database in
            try database.withStatement(Self.retryDelivery) { statement in
                try statement.bind(now, retryUntil, id)
                try statement.step()
            }
            return try database.withStatement(Self.deliveryByID) { row in
                try row.bind(id)
                return try row.step() ? Self.delivery(row) : nil
            }
        }
    }

    public func webhookOutboxStatus() async throws -> WebhookOutboxStatus {
        try await withStatement(Self.outboxStatus) { row in
            guard try row.step() else { throw StoreError(.database, "SQLite answered nothing to a count") }
            return WebhookOutboxStatus(depth: Int(row.int64(0)), oldestPendingAt: row.optionalDate(1))
        }
    }

    public func renameWebhookReceiver(_ receiver: String, to name: String) async throws -> Int {
        try await withDatabase { database in
            try database.withStatement(Self.renameReceiver) { statement in
                try statement.bind(receiver, name)
                try statement.step()
                return database.changes
            }
        }
    }

    public func purgeSecurityEvents(eventsBefore: Date, deliveriesBefore: Date) async throws {
        try await policy.call(#function) {
            while try purgeBatch(Self.purgeOldDeliveries, bind: { try $0.bind(eventsBefore, Self.purgeBatchSize) }) {
                await Task.yield()
            }
            while try purgeBatch(Self.purgeDeliveredDeliveries, bind: { try $0.bind(deliveriesBefore, Self.purgeBatchSize) }) {
                await Task.yield()
            }
            while try purgeBatch(Self.purgeEvents, bind: { try $0.bind(eventsBefore, Self.purgeBatchSize) }) {
                await Task.yield()
            }
        }
    }

    /// Runs one batch of a purge; true when the batch was full (there may be more).
    private func purgeBatch(_ sql: String, bind: (SQLiteStatement) throws -> Void) throws -> Bool {
        try lockedDatabase { database in
            try database.withStatement(sql) { statement in
                try bind(statement)
                try statement.step()
                return Int64(database.changes) >= Self.purgeBatchSize
            }
        }
    }

    // MARK: Rows

    static func event(_ row: SQLiteStatement, from first: Int32) throws -> SecurityEvent {
        guard let type = SecurityEventType(rawValue: row.text(first + 2)) else {
            throw StoreError(.database, "the store holds an event of unknown type \"\(row.text(first + 2))\"")
        }
        return SecurityEvent(
            id: row.text(first + 1), type: type,
            occurredAt: row.date(first + 3), userHandle: row.optionalBlob(first + 4), username: row.optionalText(first + 5),
            credentialID: row.optionalBlob(first + 6), aaguid: row.optionalBlob(first + 7),
            authenticatorName: row.optionalText(first + 8), clientAddress: row.optionalText(first + 9),
            userAgent: row.optionalText(first + 10), requestID: row.optionalText(first + 11),
            actor: SecurityEventActor(storedText: row.text(first + 12)), detail: row.optionalText(first + 13),
            reason: row.optionalText(first + 14), backupEligible: row.optionalBool(first + 15), sequence: row.int64(first))
    }

    private static func delivery(_ row: SQLiteStatement) -> WebhookDelivery {
        WebhookDelivery(
            id: row.int64(0), eventID: row.text(1), receiver: row.text(2),
            state: WebhookDeliveryState(rawValue: row.text(3)) ?? .pending, attempts: Int(row.int64(4)),
            createdAt: row.date(5), nextAttemptAt: row.date(6), retryUntil: row.date(7), deliveredAt: row.optionalDate(8),
            lastError: row.optionalText(9))
    }
}
