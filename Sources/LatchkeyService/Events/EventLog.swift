import Foundation
import LatchkeyStore
import Logging
import WebAuthn

/// The audit log and the webhook outbox, read by backends: events newest first, filtered; deliveries by state;
/// a delivery sent again. (On PostgreSQL, two transactions may commit out of the order of their sequence numbers,
/// so a reader that syncs by "newer than the last I saw" should re-read a few seconds back with `since`.)
package struct EventLog: Sendable {
    let service: RelyingPartyService

    /// The events `query` selects, narrowed by `filter` (checked in its order: a user named both ways, the user's
    /// name, the handle, the types, the time).
    package func events(_ query: SecurityEventQuery, filteredBy filter: EventFilter = EventFilter()) async throws -> [SecurityEvent] {
        var query = query
        let user = filter.user.flatMap { $0.isEmpty ? nil : $0 }, userHandle = filter.userHandle.flatMap { $0.isEmpty ? nil : $0 }
        if user != nil, userHandle != nil {
            throw ServiceError.invalid("send user or userHandle, not both: each names the user whose events to show")
        }
        if let user {
            let (username, found) = try await UserNames.find(user) { try await service.store.user(named: $0) }
            guard let found else {
                throw ServiceError(.notFound, "no user is named \"\(username)\"; for a deleted user's events, filter by userHandle")
            }
            query.userHandle = found.handle
        }
        if let userHandle {
            guard let handle = Base64URL.decode(userHandle), !handle.isEmpty else { throw ServiceError.invalid("userHandle is not base64url") }
            query.userHandle = handle
        }
        if let text = filter.types, !text.isEmpty {
            query.types = try text.split(separator: ",").map { name in
                guard let type = SecurityEventType(rawValue: String(name)) else {
                    throw ServiceError.invalid(
                        "type \"\(name)\" is not an event type; the types are \(SecurityEventType.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                return type
            }
        }
        if let text = filter.since, !text.isEmpty {
            guard let since = RFC3339.date(text) else {
                throw ServiceError.invalid("since \(text.debugDescription) is not an RFC 3339 time that exists, such as 2026-11-27T10:00:00Z")
            }
            query.since = since
        }
        return try await service.store.securityEvents(query)
    }

    /// Webhook deliveries, newest first, in `state` when given.
    package func deliveries(state: WebhookDeliveryState?, before: Int64?, limit: Int) async throws -> [WebhookDelivery] {
        try await service.store.webhookDeliveries(state: state, before: before, limit: limit)
    }

    /// Sends a delivery again (a dead one, typically) from now, for another retry window.
    package func retry(delivery id: Int64?, caller: Caller) async throws -> WebhookDelivery {
        let now = Date()
        guard let id, let delivery = try await service.store.retryWebhookDelivery(
            id: id, now: now, retryUntil: now.addingTimeInterval(WebhookOutbox.defaultRetryWindow))
        else { throw ServiceError(.notFound, "no webhook delivery with this id") }
        caller.logger.notice("webhook delivery retried by the admin API", metadata: ["delivery": "\(id)", "event": "\(delivery.eventID)"])
        return delivery
    }
}

/// How a backend narrows the events it reads, as it wrote each filter; empty ones are left out.
package struct EventFilter: Sendable {
    /// The username whose events to show.
    package var user: String?
    /// The handle (base64url) whose events to show: a deleted user's.
    package var userHandle: String?
    /// Event types, comma-separated.
    package var types: String?
    /// An RFC 3339 time: events at or after it.
    package var since: String?

    package init(user: String? = nil, userHandle: String? = nil, types: String? = nil, since: String? = nil) {
        self.user = user
        self.userHandle = userHandle
        self.types = types
        self.since = since
    }
}
