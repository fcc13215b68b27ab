import Foundation
import LatchkeyJSON
import LatchkeyService
import WebAuthn

/// `/admin/v1/tenants` (``TenantAdministration``), behind ``OperatorKeyAuthenticator``, on the default tenant's admin
/// API only. After each change this instance serves it at once (`refresh`); the others within their next poll.
struct TenantsController: Sendable {
    let routes: ServiceRoutes
    /// Serves the store's directory now.
    let refresh: @Sendable () async -> Void

    private var tenants: TenantAdministration { routes.service.tenantAdministration }

    func addRoutes(to group: RouteGroup) {
        group.post("", use: create)
        group.get("", use: list)
        group.get("{id}", use: show)
        group.patch("{id}", use: update)
        group.delete("{id}", use: delete)
    }

    @Sendable func create(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let made = try await tenants.create(try Self.document(request), caller: routes.caller(request, context))
        await refresh()
        return JSONResponse.make(TenantReply(tenant: TenantView(tenant: made)), status: .created)
    }

    @Sendable func list(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        JSONResponse.make(TenantList(tenants: try await tenants.tenants().map(TenantView.init)))
    }

    @Sendable func show(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        JSONResponse.make(TenantReply(tenant: TenantView(tenant: try await tenants.tenant(Self.id(context)))))
    }

    @Sendable func update(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let changed = try await tenants.update(Self.id(context), changes: try Self.document(request), caller: routes.caller(request, context))
        await refresh()
        return JSONResponse.make(TenantReply(tenant: TenantView(tenant: changed)))
    }

    @Sendable func delete(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        try await tenants.delete(Self.id(context), caller: routes.caller(request, context))
        await refresh()
        return JSONResponse.ok()
    }

    private static func id(_ context: LatchkeyRequestContext) -> String {
        context.parameters.get("id") ?? ""
    }

    /// The body as one JSON object.
    private static func document(_ request: Request) throws -> [String: JSONValue] {
        guard case .object(let members) = try request.decode(as: JSONValue.self) else {
            throw APIError.badRequest("the request body must be one JSON object: the tenant's members")
        }
        return members
    }
}
