import Foundation
import LatchkeyService
import LatchkeyStore

/// Lets a request through to the admin API only with `Authorization: Bearer` and a live admin
/// key, found by its hash (so a revoked key fails at once on every instance); records the key's
/// use and adds its name to the request's log lines. Everything else is a 401.
struct AdminKeyAuthenticator: RouteMiddleware {
    let store: any BackendStore

    func handle(_ request: Request, context: LatchkeyRequestContext, next: RouteHandler) async throws -> Response {
        guard let key = ServiceCookies.bearerToken(in: request) else {
            throw Self.refusal("the admin API needs Authorization: Bearer with an admin key")
        }
        guard key.hasPrefix(AdminKeys.prefix), let record = try await store.useAdminKey(hash: AdminKeys.hash(key), now: Date()) else {
            throw Self.refusal("this is not a live admin key (it is unknown, revoked, or not an admin key)")
        }
        var context = context
        context.logger[metadataKey: "adminKey"] = "\(record.name)"
        context.adminKeyName = record.name
        return try await next(request, context)
    }

    private static func refusal(_ message: String) -> APIError {
        APIError(.unauthorized, message, headers: [.wwwAuthenticate: "Bearer realm=\"latchkey-admin\""])
    }
}
