import CoreMetrics
import Hummingbird
import LatchkeyService
import Synchronization

/// Counts and times every request, under the names and dimensions of Hummingbird's own
/// `MetricsMiddleware` (`hb.requests`, `http.server.request.duration`, `hb.request.errors`,
/// `http.server.active_requests`, by route, method and status). Unlike that middleware it records
/// when the handler has produced the response rather than after the body was written, so the body
/// stays a single buffer and Hummingbird writes head, body and end in one socket write.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    private let cache = RequestMetricsCache()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let active = cache.activeRequests(request.method)
        active.increment()
        defer { active.decrement() }
        do {
            let response = try await next(request, context)
            let metrics = cache.endpoint(route: context.endpointPath ?? "Unknown", method: request.method, status: response.status)
            metrics.requests.increment()
            metrics.duration.record(since: start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            let metrics = cache.endpoint(route: context.endpointPath ?? "NotFound", method: request.method, status: status)
            metrics.requests.increment()
            metrics.errors.increment()
            throw error
        }
    }
}

/// The metric handles per method and per route, method and status, made once each.
private final class RequestMetricsCache: Sendable {
    struct Endpoint: Hashable {
        let route: String
        let method: HTTPRequest.Method
        let status: HTTPResponse.Status
    }

    struct EndpointMetrics: Sendable {
        let requests: Counter
        let duration: CoreMetrics.Timer
        let errors: Counter

        init(_ endpoint: Endpoint) {
            let dimensions = [
                ("http.route", endpoint.route), ("http.request.method", endpoint.method.rawValue),
                ("http.response.status_code", String(endpoint.status.code)),
            ]
            requests = Counter(label: "hb.requests", dimensions: dimensions)
            duration = CoreMetrics.Timer(label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds)
            errors = Counter(label: "hb.request.errors", dimensions: [
                ("http.route", endpoint.route), ("http.request.method", endpoint.method.rawValue),
                ("error.type", String(endpoint.status.code)),
            ])
        }
    }

    private let endpoints = Mutex<[Endpoint: EndpointMetrics]>([:])
    private let methods = Mutex<[HTTPRequest.Method: Meter]>([:])

    func endpoint(route: String, method: HTTPRequest.Method, status: HTTPResponse.Status) -> EndpointMetrics {
        let key = Endpoint(route: route, method: method, status: status)
        return endpoints.withLock { cached in
            if let metrics = cached[key] { return metrics }
            let metrics = EndpointMetrics(key)
            cached[key] = metrics
            return metrics
        }
    }

    func activeRequests(_ method: HTTPRequest.Method) -> Meter {
        methods.withLock { cached in
            if let meter = cached[method] { return meter }
            let meter = Meter(label: "http.server.active_requests", dimensions: [("http.request.method", method.rawValue)])
            cached[method] = meter
            return meter
        }
    }
}
