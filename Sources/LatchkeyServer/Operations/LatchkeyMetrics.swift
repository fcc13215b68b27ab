import CoreMetrics
import Foundation
import LatchkeyStore
import Synchronization
import WebAuthn

/// Latchkey's own metrics, through swift-metrics (Prometheus when the server is started by the
/// `latchkey` command): ceremonies by kind and outcome, verification and store latency, and the
/// pending challenges and live sessions the store holds. HTTP requests by route and status come
/// from Hummingbird's `MetricsMiddleware`.
public final class LatchkeyMetrics: Sendable {
    /// The ceremony a request belongs to: `registration-options`, `authentication-result`, ...
    public enum Ceremony: String, Sendable, CaseIterable {
        case registrationOptions = "registration-options"
        case registrationResult = "registration-result"
        case authenticationOptions = "authentication-options"
        case authenticationResult = "authentication-result"
    }

    private let factory: any MetricsFactory
    private let counters = Mutex<[String: Counter]>([:])
    private let timers = Mutex<[String: CoreMetrics.Timer]>([:])
    private let pendingCeremonies: Gauge
    private let liveSessions: Gauge

    /// Metrics made by `factory` (the global one by default: a no-op until it is bootstrapped).
    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
        pendingCeremonies = Gauge(label: "latchkey_pending_challenges", dimensions: [], factory: factory)
        liveSessions = Gauge(label: "latchkey_live_sessions", dimensions: [], factory: factory)
    }

    /// Counts one finished ceremony step: `ok`, or the check or reason that refused it.
    public func recordCeremony(_ ceremony: Ceremony, outcome: String) {
        counter("latchkey_ceremonies_total", [("ceremony", ceremony.rawValue), ("outcome", outcome)]).increment()
    }

    /// Times a WebAuthn verification (§7.1 or §7.2), whatever its outcome.
    public func timeVerification<T>(_ ceremony: Ceremony, _ body: () throws -> T) rethrows -> T {
        let start = ContinuousClock.now
        defer { timer("latchkey_verification_duration_seconds", [("ceremony", ceremony.rawValue)]).record(since: start) }
        return try body()
    }

    /// Records how long one store operation took.
    func recordStoreCall(_ operation: String, since start: ContinuousClock.Instant) {
        timer("latchkey_store_duration_seconds", [("operation", operation)]).record(since: start)
    }

    /// Sets the gauges of what the store holds.
    func recordLiveRecords(_ counts: LiveRecordCounts) {
        pendingCeremonies.record(counts.pendingCeremonies)
        liveSessions.record(counts.sessions)
    }

    /// The outcome label of an error a ceremony step threw: the core's check name, the store's
    /// error code, or the HTTP status.
    static func outcome(of error: any Error) -> String {
        switch error {
        case let error as WebAuthnError: error.code.description
        case let error as StoreError: error.code.description
        case let error as APIError: error.reason?.rawValue ?? "http\(error.status.code)"
        default: "error"
        }
    }

    private func counter(_ label: String, _ dimensions: [(String, String)]) -> Counter {
        let key = Self.key(label, dimensions)
        return counters.withLock { cache in
            if let counter = cache[key] { return counter }
            let counter = Counter(label: label, dimensions: dimensions, factory: factory)
            cache[key] = counter
            return counter
        }
    }

    private func timer(_ label: String, _ dimensions: [(String, String)]) -> CoreMetrics.Timer {
        let key = Self.key(label, dimensions)
        return timers.withLock { cache in
            if let timer = cache[key] { return timer }
            let timer = CoreMetrics.Timer(label: label, dimensions: dimensions, factory: factory)
            cache[key] = timer
            return timer
        }
    }

    private static func key(_ label: String, _ dimensions: [(String, String)]) -> String {
        dimensions.reduce(label) { $0 + "\u{0}" + $1.0 + "=" + $1.1 }
    }
}

extension CoreMetrics.Timer {
    /// Records the time from `start` until now.
    fileprivate func record(since start: ContinuousClock.Instant) {
        let elapsed = (ContinuousClock.now - start).components
        recordNanoseconds(elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000)
    }
}
