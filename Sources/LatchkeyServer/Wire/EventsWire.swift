import Foundation
import LatchkeyConfiguration
import LatchkeyService
import LatchkeyStore
import WebAuthn

/// One security event as the admin API, the account page and webhook bodies show it. Members
/// that do not apply are left out.
struct SecurityEventSummary: Encodable, Sendable {
    struct User: Encodable, Sendable {
        var handle: Base64URLBytes
        var username: String?
    }
    struct Authenticator: Encodable, Sendable {
        /// Dashed lowercase hexadecimal.
        var aaguid: String?
        var name: String?
    }
    struct Client: Encodable, Sendable {
        /// As `trustedProxies` resolved it; an IPv6 client by its /64.
        var address: String?
        var userAgent: String?
    }
    struct Actor: Encodable, Sendable {
        /// `user`, `admin` or `system`.
        var type: String
        /// The admin key's name, or the part of the system.
        var name: String?
    }

    var id: String
    var type: String
    /// RFC 3339, UTC, milliseconds.
    var time: String
    var user: User?
    var credentialId: Base64URLBytes?
    var authenticator: Authenticator?
    var client: Client?
    var requestId: String?
    var actor: Actor
    var detail: String?

    init(_ event: SecurityEvent) {
        id = event.id
        type = event.type.rawValue
        time = RFC3339.string(event.occurredAt)
        user = event.userHandle.map { User(handle: Base64URLBytes($0), username: event.username) }
        credentialId = event.credentialID.map(Base64URLBytes.init)
        if event.aaguid != nil || event.authenticatorName != nil {
            authenticator = Authenticator(aaguid: event.aaguid.map(AAGUID.string), name: event.authenticatorName)
        }
        if event.clientAddress != nil || event.userAgent != nil {
            client = Client(address: event.clientAddress, userAgent: event.userAgent)
        }
        requestId = event.requestID
        actor = Actor(type: event.actor.kind.rawValue, name: event.actor.name)
        detail = event.detail
    }
}

/// The body of a webhook delivery, in the Standard Webhooks shape: `type`, `timestamp` (when the
/// event occurred) and the event as `data`.
struct WebhookPayload: Encodable, Sendable {
    var type: String
    var timestamp: String
    var data: SecurityEventSummary

    init(_ event: SecurityEvent) {
        type = event.type.rawValue
        timestamp = RFC3339.string(event.occurredAt)
        data = SecurityEventSummary(event)
    }
}

/// A page of events, newest first; `nextCursor` fetches the page after it (absent on the last).
struct SecurityEventPage: Encodable, Sendable {
    var status = "ok"
    var errorMessage = ""
    var events: [SecurityEventSummary]
    var nextCursor: String?
}

/// One webhook delivery as `GET /admin/v1/webhook-deliveries` lists it.
struct WebhookDeliverySummary: Encodable, Sendable {
    var id: String
    var eventId: String
    var receiver: String
    var state: String
    var attempts: Int
    var createdAt: String
    var nextAttemptAt: String?
    var retryUntil: String
    var deliveredAt: String?
    var lastError: String?

    init(_ delivery: WebhookDelivery) {
        id = String(delivery.id)
        eventId = delivery.eventID
        // A password in the URL is a secret of the configuration's, as in every other place it is shown.
        receiver = ConfigurationRedaction.redactingURLPassword(delivery.receiver)
        state = delivery.state.rawValue
        attempts = delivery.attempts
        createdAt = RFC3339.string(delivery.createdAt)
        nextAttemptAt = delivery.state == .pending ? RFC3339.string(delivery.nextAttemptAt) : nil
        retryUntil = RFC3339.string(delivery.retryUntil)
        deliveredAt = delivery.deliveredAt.map(RFC3339.string)
        lastError = delivery.lastError
    }
}

/// A page of deliveries, newest first.
struct WebhookDeliveryPage: Encodable, Sendable {
    var status = "ok"
    var errorMessage = ""
    var deliveries: [WebhookDeliverySummary]
    var nextCursor: String?
}

/// `POST /admin/v1/webhook-deliveries/{id}/retry`: the delivery as it now stands.
struct WebhookDeliveryReply: Encodable, Sendable {
    var status = "ok"
    var errorMessage = ""
    var delivery: WebhookDeliverySummary
}
