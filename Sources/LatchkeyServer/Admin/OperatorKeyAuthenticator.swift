import Foundation
import LatchkeyService
import LatchkeyStore

/// Lets a request through to `/admin/v1/tenants` only with `Authorization: Bearer` and a live operator key
/// (`latchkey admin-keys create --operator`), found by its hash among the operators' keys, which are no tenant's:
/// a tenant's admin key is refused here, and an operator key everywhere else. Everything else is a 401.
struct OperatorKeyAuthenticator: RouteMiddleware {
    /// The store scoped to ``TenantID/operators``.
    let operators: any LatchkeyStore

    init(store: any LatchkeyStore) {
        operators = store.scoped(to: .operators)
    }

    func handle(_ request: Request, context: LatchkeyRequestContext, next: RouteHandler) async throws -> Response {
        guard let key = ServiceCookies.bearerToken(in: request) else {
            throw Self.refusal("the tenants API needs Authorization: Bearer with an operator key (latchkey admin-keys create --operator)")
        }
        guard key.hasPrefix(AdminKeys.operatorPrefix),
              let record = try await operators.useAdminKey(hash: AdminKeys.hash(key), now: Date())
        else {
            throw Self.refusal("this is not a live operator key (it is unknown, revoked, or a tenant's admin key)")
        }
        var context = context
        context.logger[metadataKey: "operatorKey"] = "\(record.name)"
        context.adminKeyName = "operator:\(record.name)"
        return try await next(request, context)
    }

    private static func refusal(_ message: String) -> APIError {
        APIError(.unauthorized, message, headers: [.wwwAuthenticate: "Bearer realm=\"latchkey-operator\""])
    }
}
