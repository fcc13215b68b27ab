import LatchkeyService
import Prometheus

extension PrometheusMetricsFactory {
    /// A factory over `registry` whose metric and label names are valid Prometheus names
    /// (Hummingbird's `http.server.request.duration` becomes `http_server_request_duration`), with
    /// latency buckets from 100 µs, where a signature check lives, to 5 s.
    public static func latchkey(registry: PrometheusCollectorRegistry) -> PrometheusMetricsFactory {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.nameAndLabelSanitizer = { name, labels in
            (prometheusName(name), labels.map { (prometheusName($0.0), $0.1) })
        }
        factory.defaultDurationHistogramBuckets = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .microseconds(2_500),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
        ]
        return factory
    }

    /// Letters, digits and `_` only, not starting with a digit.
    private static func prometheusName(_ name: String) -> String {
        var result = String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") ? $0 : "_" })
        if let first = result.first, first.isNumber { result = "_" + result }
        return result
    }
}
