import CoreMetrics
import LatchkeyService
import LatchkeyStore
import NIOHTTP1
import Synchronization

/// Counts and times every request, under the names and dimensions Latchkey has always used (those it
/// had from Hummingbird's `MetricsMiddleware`: `hb.requests`, `http.server.request.duration` and
/// `http.server.active_requests`, by route, method and status), so dashboards keep working. A request no
/// route matched is counted under the route `Unknown`. A tenant's requests but the default tenant's carry its ID as
/// `tenant` too, so a single-tenant server's series are as they were.
final class RequestMetrics: Sendable {
    struct Endpoint: Hashable {
        let route: String
        let method: String
        let status: UInt
    }

    struct EndpointMetrics: Sendable {
        let requests: Counter
        let duration: CoreMetrics.Timer

        init(_ endpoint: Endpoint, tenant: [(String, String)]) {
            let dimensions = [
                ("http.route", endpoint.route), ("http.request.method", endpoint.method),
                ("http.response.status_code", String(endpoint.status)),
            ] + tenant
            requests = Counter(label: "hb.requests", dimensions: dimensions)
            duration = CoreMetrics.Timer(label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds)
        }
    }

    private let endpoints = Mutex<[Endpoint: EndpointMetrics]>([:])
    private let methods = Mutex<[String: Meter]>([:])
    /// The `tenant` dimension: none for the default tenant.
    private let tenant: [(String, String)]

    init(tenant: TenantID = .default) {
        self.tenant = LatchkeyMetrics.tenantDimension(tenant)
    }

    /// Records a request to `route` answered with `status`, begun at `start`.
    func record(route: String?, method: HTTPMethod, status: HTTPResponseStatus, since start: ContinuousClock.Instant) {
        let metrics = endpoint(Endpoint(route: route ?? "Unknown", method: method.rawValue, status: status.code))
        metrics.requests.increment()
        metrics.duration.record(since: start)
    }

    private func endpoint(_ key: Endpoint) -> EndpointMetrics {
        endpoints.withLock { cached in
            if let metrics = cached[key] { return metrics }
            let metrics = EndpointMetrics(key, tenant: tenant)
            cached[key] = metrics
            return metrics
        }
    }

    /// The gauge of requests in progress with `method`.
    func activeRequests(_ method: HTTPMethod) -> Meter {
        methods.withLock { cached in
            if let meter = cached[method.rawValue] { return meter }
            let meter = Meter(label: "http.server.active_requests", dimensions: [("http.request.method", method.rawValue)])
            cached[method.rawValue] = meter
            return meter
        }
    }
}
