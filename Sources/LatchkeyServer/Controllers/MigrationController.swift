import Foundation
import LatchkeyService
import NIOCore

/// `GET /admin/v1/export` (MIGRATING.md): the tenant's accounts and passkeys as JSON Lines, streamed as they are read,
/// so an export of a million accounts holds one page in memory; `?user=USERNAME` for one account.
struct MigrationController: Sendable {
    let routes: ServiceRoutes

    func addRoutes(to group: RouteGroup) {
        group.get("export", use: export)
    }

    @Sendable func export(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let export = AccountExport(store: routes.service.store)
        var response = Response(status: .ok, headers: ["Content-Type": "application/jsonl", "Cache-Control": "no-store"])
        if let username = request.uri.queryParameters.get("user") {
            guard let account = try await export.account(named: username) else {
                throw APIError(.notFound, "there is no user \(username.prefix(64).debugDescription)")
            }
            response.body = ByteBuffer(bytes: try AccountExport.line(account))
            return response
        }
        routes.caller(request, context).logger.notice("every account exported through the admin API")
        response.bodyStream = Response.BodyStream { write in
            try await export.forEachPiece { try await write(ByteBuffer(bytes: $0)) }
        }
        return response
    }
}
