import LatchkeyService
import NIOCore
import Prometheus
import WebAuthn

/// `GET /metrics` in the Prometheus text format. On the public listener only with a bearer token
/// (`metricsToken`, compared in constant time); on the separate metrics listener
/// (`metricsAddress`) without one.
struct MetricsEndpoint: Sendable {
    let registry: PrometheusCollectorRegistry
    /// The token a scraper must send on the public listener; nil on the metrics listener.
    let token: String?

    func addRoutes(to router: Router) {
        router.get("metrics", immediately: { request, _ in
            if let token {
                let sent = ServiceCookies.bearerToken(in: request) ?? ""
                guard constantTimeEquals(Digest.sha256(Array(sent.utf8)), Digest.sha256(Array(token.utf8))) else {
                    throw APIError(.unauthorized, "metrics need Authorization: Bearer with the metrics token")
                }
            }
            return Response(
                status: .ok, headers: ["content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store"],
                body: ByteBuffer(bytes: registry.emitToBuffer()))
        })
    }
}
