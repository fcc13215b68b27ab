import HTTPTypes
import Hummingbird

/// Limits how fast one client address may call the ceremony endpoints (`POST` to
/// `/attestation/options`, `/attestation/result`, `/assertion/options`, `/assertion/result`), all
/// four drawing on one token bucket per address: beyond it, 429 with `Retry-After`, before the
/// body is read or the store is asked anything.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = LatchkeyRequestContext
    static let limitedPaths: Set<String> = [
        "/attestation/options", "/attestation/result", "/assertion/options", "/assertion/result",
        "/device-keys/options", "/device-keys", "/device-keys/sign-in/options", "/device-keys/sign-in",
    ]

    let buckets: TokenBuckets

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post, Self.limitedPaths.contains(request.uri.path) else {
            return try await next(request, context)
        }
        switch buckets.take(for: context.clientAddress) {
        case .allowed:
            return try await next(request, context)
        case .refused(let retryAfter):
            context.logger.debug("rate limited", metadata: ["client": "\(context.clientAddress)", "path": "\(request.uri.path)"])
            throw APIError(
                .tooManyRequests,
                "too many requests from \(context.clientAddress): at most \(Int(buckets.rate)) a second (\(Int(buckets.burst)) at once) to the sign-in and registration endpoints; retry in \(retryAfter) s",
                headers: [.retryAfter: String(retryAfter)])
        }
    }
}
