import Foundation
import Hummingbird
import LatchkeyService
import LatchkeyStore
import WebAuthn

/// The audit log and the webhook outbox, read: `GET /admin/v1/events`, `GET /admin/v1/webhook-deliveries`
/// and `POST /admin/v1/webhook-deliveries/{id}/retry` for backends, and `GET /account/events` (the
/// page's "Recent activity") for the signed-in user. Pages are newest first; `cursor` is the
/// previous page's `nextCursor`, so a page never repeats an event, and events written meanwhile
/// come first in a later read. (On PostgreSQL, two transactions may commit out of the order of
/// their sequence numbers, so a reader that syncs by "newer than the last I saw" should re-read a
/// few seconds back with `since`.)
struct EventsController: Sendable {
    let services: LatchkeyServices

    func addAdminRoutes(to group: RouterGroup<LatchkeyRequestContext>) {
        group.get("events", use: adminEvents)
        group.get("webhook-deliveries", use: deliveries)
        group.post("webhook-deliveries/{id}/retry", use: retry)
    }

    func addAccountRoutes(to group: RouterGroup<LatchkeyRequestContext>) {
        group.get("events", use: accountEvents)
    }

    /// `?user=USERNAME` or `?userHandle=BASE64URL` (a deleted user's), `type=a,b`, `since=RFC3339`,
    /// `limit=1...200` (50), `cursor=`.
    @Sendable func adminEvents(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let parameters = request.uri.queryParameters
        var query = try Self.page(parameters, defaultLimit: 50)
        if parameters.get("user")?.isEmpty == false, parameters.get("userHandle")?.isEmpty == false {
            throw APIError.badRequest("send user or userHandle, not both: each names the user whose events to show")
        }
        if let name = parameters.get("user"), !name.isEmpty {
            let (username, found) = try await UserNames.find(name) { try await services.store.user(named: $0) }
            guard let user = found else {
                throw APIError(.notFound, "no user is named \"\(username)\"; for a deleted user's events, filter by userHandle")
            }
            query.userHandle = user.handle
        }
        if let text = parameters.get("userHandle"), !text.isEmpty {
            guard let handle = Base64URL.decode(text), !handle.isEmpty else {
                throw APIError.badRequest("userHandle is not base64url")
            }
            query.userHandle = handle
        }
        if let text = parameters.get("type"), !text.isEmpty {
            query.types = try text.split(separator: ",").map { name in
                guard let type = SecurityEventType(rawValue: String(name)) else {
                    throw APIError.badRequest(
                        "type \"\(name)\" is not an event type; the types are \(SecurityEventType.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                return type
            }
        }
        if let text = parameters.get("since"), !text.isEmpty {
            guard let since = RFC3339.date(text) else {
                throw APIError.badRequest(
                    "since \(text.debugDescription) is not an RFC 3339 time that exists, such as 2026-11-27T10:00:00Z")
            }
            query.since = since
        }
        return try await reply(query)
    }

    /// The signed-in user's own security history: `?limit=1...200` (20), `cursor=`.
    @Sendable func accountEvents(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let user = try context.requireIdentity().user
        var query = try Self.page(request.uri.queryParameters, defaultLimit: 20)
        query.userHandle = user.handle
        return try await reply(query)
    }

    /// `?state=pending|delivered|dead`, `limit=1...200` (50), `cursor=`.
    @Sendable func deliveries(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let parameters = request.uri.queryParameters
        let page = try Self.page(parameters, defaultLimit: 50)
        var state: WebhookDeliveryState?
        if let text = parameters.get("state"), !text.isEmpty {
            guard let named = WebhookDeliveryState(rawValue: text) else {
                throw APIError.badRequest("state is pending, delivered or dead, not \"\(text)\"")
            }
            state = named
        }
        let deliveries = try await services.store.webhookDeliveries(state: state, before: page.before, limit: page.limit)
        return JSONResponse.make(WebhookDeliveryPage(
            deliveries: deliveries.map(WebhookDeliverySummary.init),
            nextCursor: deliveries.count == page.limit ? deliveries.last.map { String($0.id) } : nil))
    }

    /// Sends a delivery again (a dead one, typically) from now, for another retry window.
    @Sendable func retry(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        guard let text = context.parameters.get("id"), let id = Int64(text) else {
            throw APIError(.notFound, "no webhook delivery with this id")
        }
        let now = Date()
        guard let delivery = try await services.store.retryWebhookDelivery(
            id: id, now: now, retryUntil: now.addingTimeInterval(WebhookOutbox.defaultRetryWindow))
        else { throw APIError(.notFound, "no webhook delivery with this id") }
        context.logger.notice("webhook delivery retried by the admin API", metadata: ["delivery": "\(id)", "event": "\(delivery.eventID)"])
        return JSONResponse.make(WebhookDeliveryReply(delivery: WebhookDeliverySummary(delivery)))
    }

    private func reply(_ query: SecurityEventQuery) async throws -> Response {
        let events = try await services.store.securityEvents(query)
        return JSONResponse.make(SecurityEventPage(
            events: events.map(SecurityEventSummary.init),
            nextCursor: events.count == query.limit ? events.last.map { String($0.sequence) } : nil))
    }

    /// `limit` and `cursor`, checked.
    private static func page(_ parameters: Parameters, defaultLimit: Int) throws -> SecurityEventQuery {
        var query = SecurityEventQuery(limit: try PageLimit.parse(parameters, default: defaultLimit))
        if let text = parameters.get("cursor"), !text.isEmpty {
            guard let cursor = Int64(text), cursor > 0 else {
                throw APIError.badRequest("cursor is not one this server gave (use nextCursor from the previous page)")
            }
            query.before = cursor
        }
        return query
    }
}
