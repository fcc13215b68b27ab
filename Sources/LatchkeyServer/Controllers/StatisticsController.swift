import Foundation
import LatchkeyService

/// The statistics kept as the data changes: `GET /admin/v1/stats?from=YYYY-MM-DD&to=YYYY-MM-DD`, one entry per UTC
/// day of the range (zeros included), the range's totals and the webhook outbox as it stands.
struct StatisticsController: Sendable {
    let routes: ServiceRoutes

    func addAdminRoutes(to group: RouteGroup) {
        group.get("stats", use: statistics)
    }

    /// `from` and `to` (both optional: the last 30 days through today), at most 731 days.
    @Sendable func statistics(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let parameters = request.uri.queryParameters
        let overview = try await routes.service.statistics.overview(from: parameters.get("from"), to: parameters.get("to"))
        return JSONResponse.make(StatisticsReply(overview))
    }
}
