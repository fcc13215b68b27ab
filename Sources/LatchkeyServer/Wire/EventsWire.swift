import Foundation
import LatchkeyConfiguration
import LatchkeyService
import LatchkeyStore
import WebAuthn

/// A page of events, newest first; `nextCursor` fetches the page after it (absent on the last).
struct SecurityEventPage: ReplyBody {
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
struct WebhookDeliveryPage: ReplyBody {
    var deliveries: [WebhookDeliverySummary]
    var nextCursor: String?
}

/// `POST /admin/v1/webhook-deliveries/{id}/retry`: the delivery as it now stands.
struct WebhookDeliveryReply: ReplyBody {
    var delivery: WebhookDeliverySummary
}

/// `GET /admin/v1/stats`: the range, every day of it, the totals and the outbox now.
struct StatisticsReply: ReplyBody {
    var from: String
    var to: String
    var days: [DailyStatistics]
    var totals: StatisticsTotals
    var outbox: OutboxHealth

    init(_ overview: StatisticsOverview) {
        from = overview.from.description
        to = overview.to.description
        days = overview.days
        totals = overview.totals
        outbox = overview.outbox
    }
}
