import Foundation
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
    let routes: ServiceRoutes

    func addAdminRoutes(to group: RouteGroup) {
        group.get("events", use: adminEvents)
        group.get("webhook-deliveries", use: deliveries)
        group.post("webhook-deliveries/{id}/retry", use: retry)
    }

    func addAccountRoutes(to group: RouteGroup) {
        group.get("events", use: accountEvents)
    }

    /// `?user=USERNAME` or `?userHandle=BASE64URL` (a deleted user's), `type=a,b`, `since=RFC3339`,
    /// `limit=1...200` (50), `cursor=`.
    @Sendable func adminEvents(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let parameters = request.uri.queryParameters
        let query = try Self.page(parameters, defaultLimit: 50)
        let filter = EventFilter(
            user: parameters.get("user"), userHandle: parameters.get("userHandle"), types: parameters.get("type"),
            since: parameters.get("since"))
        return Self.reply(try await routes.service.eventLog.events(query, filteredBy: filter), limit: query.limit)
    }

    /// The signed-in user's own security history: `?limit=1...200` (20), `cursor=`.
    @Sendable func accountEvents(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let caller = try routes.signedInCaller(request, context)
        let query = try Self.page(request.uri.queryParameters, defaultLimit: 20)
        return Self.reply(try await routes.service.account.events(query, caller: caller), limit: query.limit)
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
        let deliveries = try await routes.service.eventLog.deliveries(state: state, before: page.before, limit: page.limit)
        return JSONResponse.make(WebhookDeliveryPage(
            deliveries: deliveries.map(WebhookDeliverySummary.init),
            nextCursor: deliveries.count == page.limit ? deliveries.last.map { String($0.id) } : nil))
    }

    /// Sends a delivery again (a dead one, typically) from now, for another retry window.
    @Sendable func retry(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let delivery = try await routes.service.eventLog.retry(
            delivery: context.parameters.get("id").flatMap { Int64($0) }, caller: routes.caller(request, context))
        return JSONResponse.make(WebhookDeliveryReply(delivery: WebhookDeliverySummary(delivery)))
    }

    private static func reply(_ events: [SecurityEvent], limit: Int) -> Response {
        JSONResponse.make(SecurityEventPage(
            events: events.map(SecurityEventSummary.init),
            nextCursor: events.count == limit ? events.last.map { String($0.sequence) } : nil))
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
