import LatchkeyService
import NIOHTTP1

/// Limits how fast one client address may call the endpoints that issue challenges or verify
/// signatures and attestations (`POST` to the passkey, device-key, App Attest and console ceremonies), all
/// drawing on one token bucket per address: beyond it, 429 with `Retry-After`, before the store is asked
/// anything. Routes are told by the route matched, not the request's path, so `/assertion/result/` or
/// `//assertion//result` (which reach the same handler) count too.
struct RateLimit: Sendable {
    static let limitedRoutes: Set<String> = [
        "/attestation/options", "/attestation/result", "/assertion/options", "/assertion/result",
        "/device-keys/options", "/device-keys", "/device-keys/sign-in/options", "/device-keys/sign-in",
        "/app-attest/challenge", "/app-attest/keys", "/app-attest/assertions",
        // The operator console's own ceremonies (SECURITY.md: every route that issues or answers a challenge).
        "/console/api/enroll/options", "/console/api/enroll/result", "/console/api/sign-in/options", "/console/api/sign-in/result",
    ]

    let buckets: TokenBuckets

    /// The decision for a request to `route` from `client`, a token taken when allowed; nil for a route not limited.
    /// Made on the request's head where its site is known then, so that an empty bucket is answered before the body
    /// is read (and before `100 Continue`); ``check(_:context:)`` then keeps it.
    func decide(_ method: HTTPMethod, route: String?, client: ClientAddress) -> TokenBuckets.Decision? {
        guard method == .POST, let route, Self.limitedRoutes.contains(route) else { return nil }
        return buckets.take(for: client)
    }

    func check(_ request: Request, context: LatchkeyRequestContext) throws(APIError) {
        guard request.method == .POST, let route = context.endpointPath, Self.limitedRoutes.contains(route) else { return }
        switch request.rateLimitDecision ?? buckets.take(for: context.clientAddress) {
        case .allowed:
            return
        case .refused(let retryAfter):
            context.logger.debug("rate limited", metadata: ["client": "\(context.clientAddress)", "route": "\(route)"])
            throw APIError(
                .tooManyRequests,
                "too many requests from \(context.clientAddress): at most \(Int(buckets.rate)) a second (\(Int(buckets.burst)) at once) to the sign-in and registration endpoints; retry in \(retryAfter) s",
                headers: [.retryAfter: String(retryAfter)])
        }
    }
}
