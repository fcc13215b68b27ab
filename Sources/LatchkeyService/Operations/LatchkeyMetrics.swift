import CoreMetrics
import Metrics
import Foundation
import LatchkeyStore
import Synchronization
import WebAuthn

/// Latchkey's own metrics, through swift-metrics (Prometheus when the server is started by the
/// `latchkey` command): ceremonies by kind and outcome, verification and store latency, and the
/// pending challenges and live sessions the store holds. HTTP requests by route and status come
/// from the server's request metrics (under the names Latchkey has always used).
public final class LatchkeyMetrics: Sendable {
    /// The ceremony a request belongs to: `registration-options`, `authentication-result`, ...
    public enum Ceremony: String, Sendable, CaseIterable {
        case registrationOptions = "registration-options"
        case registrationResult = "registration-result"
        case signInOptions = "authentication-options"
        case signInResult = "authentication-result"
    }

    /// A ceremony step of a tenant and how it ended: the key of its counter.
    private struct CeremonyOutcome: Hashable {
        package let ceremony: Ceremony
        package let outcome: String
        package let tenant: TenantID
    }

    /// The `tenant` dimension of a tenant's series: none for the default tenant, whose series are a single-tenant
    /// server's.
    package static func tenantDimension(_ tenant: TenantID) -> [(String, String)] {
        tenant == .default ? [] : [("tenant", tenant.rawValue)]
    }

    private let factory: any MetricsFactory
    /// Made on first use: outcomes are open-ended (the core's check names).
    private let ceremonyCounters = Mutex<[CeremonyOutcome: Counter]>([:])
    /// One per ceremony step, made up front.
    private let verificationTimers: [Ceremony: CoreMetrics.Timer]
    /// By store operation name, made on first use.
    private let storeTimers = Mutex<[String: CoreMetrics.Timer]>([:])
    private let pendingCeremonies: Gauge
    private let liveSessions: Gauge
    /// 1 while the store takes writes, 0 while it does not (``StoreHealth``).
    private let storeWritable: Gauge
    private let storeFailures = Mutex<[String: Counter]>([:])
    /// Times accepting stopped for lack of file descriptors (``AcceptBackoff``).
    private let acceptPauses: Counter
    /// Webhook delivery attempts by tenant and outcome: `delivered`, `failed` (to be retried), `dead`; the default
    /// tenant's made up front, others' on first use.
    private let webhookAttempts = Mutex<[TenantID: [String: Counter]]>([:])
    /// The depth and oldest pending delivery's age of each tenant's outbox, labelled `tenant` (the default's too).
    private let webhookOutboxes = Mutex<[TenantID: (depth: Gauge, oldestPendingAge: Gauge)]>([:])

    /// Metrics made by `factory` (the global one by default: a no-op until it is bootstrapped).
    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
        verificationTimers = Dictionary(uniqueKeysWithValues: Ceremony.allCases.map { ceremony in
            (ceremony, CoreMetrics.Timer(
                label: "latchkey_verification_duration_seconds", dimensions: [("ceremony", ceremony.rawValue)], factory: factory))
        })
        pendingCeremonies = Gauge(label: "latchkey_pending_challenges", dimensions: [], factory: factory)
        liveSessions = Gauge(label: "latchkey_live_sessions", dimensions: [], factory: factory)
        storeWritable = Gauge(label: "latchkey_store_writable", dimensions: [], factory: factory)
        acceptPauses = Counter(label: "latchkey_accept_pauses_total", dimensions: [], factory: factory)
        // Exported at 0 from the start, so that an alert on `increase()` sees the first fault (or delivery).
        for code in [StoreError.Code.unavailable, .full, .busy] { _ = storeFaultCounter(code.description) }
        _ = webhookAttemptCounters(.default)
        _ = webhookOutboxGauges(.default)
    }

    /// Counts one webhook delivery attempt of `tenant`: `delivered`, `failed` or `dead`.
    package func recordWebhookAttempt(_ outcome: String, tenant: TenantID = .default) {
        webhookAttemptCounters(tenant)[outcome]?.increment()
    }

    /// What `tenant`'s webhook outbox holds: pending deliveries, and the age of the oldest (0 with none).
    package func recordWebhookOutbox(_ status: WebhookOutboxStatus, tenant: TenantID = .default, now: Date = Date()) {
        let gauges = webhookOutboxGauges(tenant)
        gauges.depth.record(status.depth)
        gauges.oldestPendingAge.record(status.oldestPendingAt.map { max(0, now.timeIntervalSince($0)) } ?? 0)
    }

    private func webhookAttemptCounters(_ tenant: TenantID) -> [String: Counter] {
        webhookAttempts.withLock { counters in
            if let made = counters[tenant] { return made }
            let made = Dictionary(uniqueKeysWithValues: ["delivered", "failed", "dead"].map { outcome in
                (outcome, Counter(
                    label: "latchkey_webhook_deliveries_total", dimensions: [("outcome", outcome)] + Self.tenantDimension(tenant),
                    factory: factory))
            })
            counters[tenant] = made
            return made
        }
    }

    private func webhookOutboxGauges(_ tenant: TenantID) -> (depth: Gauge, oldestPendingAge: Gauge) {
        webhookOutboxes.withLock { gauges in
            if let made = gauges[tenant] { return made }
            // Every tenant's, the default's too, carries its label: a gauge family is all labelled or not at all.
            let dimensions = [("tenant", tenant.rawValue)]
            let made = (
                Gauge(label: "latchkey_webhook_outbox_depth", dimensions: dimensions, factory: factory),
                Gauge(label: "latchkey_webhook_oldest_pending_seconds", dimensions: dimensions, factory: factory))
            gauges[tenant] = made
            return made
        }
    }

    /// Counts one finished ceremony step of `tenant`: `ok`, or the check or reason that refused it.
    public func recordCeremony(_ ceremony: Ceremony, outcome: String, tenant: TenantID = .default) {
        let key = CeremonyOutcome(ceremony: ceremony, outcome: outcome, tenant: tenant)
        let counter = ceremonyCounters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(
                label: "latchkey_ceremonies_total",
                dimensions: [("ceremony", ceremony.rawValue), ("outcome", outcome)] + Self.tenantDimension(tenant), factory: factory)
            counters[key] = counter
            return counter
        }
        counter.increment()
    }

    /// Times a WebAuthn verification (§7.1 or §7.2), whatever its outcome.
    public func timeVerification<T>(_ ceremony: Ceremony, _ body: () throws -> T) rethrows -> T {
        let start = ContinuousClock.now
        defer { verificationTimers[ceremony]?.record(since: start) }
        return try body()
    }

    /// Records how long one store call took; `function` is the store method's `#function`, whose
    /// operation label is made once, with its timer.
    package func recordStoreCall(_ function: String, since start: ContinuousClock.Instant) {
        let timer = storeTimers.withLock { timers in
            if let timer = timers[function] { return timer }
            let timer = CoreMetrics.Timer(
                label: "latchkey_store_duration_seconds", dimensions: [("operation", StoreCallPolicy.operation(function))], factory: factory)
            timers[function] = timer
            return timer
        }
        timer.record(since: start)
    }

    /// Sets the gauges of what the store holds.
    /// Accepting connections paused for lack of file descriptors.
    package func recordAcceptPause() {
        acceptPauses.increment()
    }

    /// What the last readiness probe found.
    package func recordStoreWritable(_ writable: Bool) {
        storeWritable.record(writable ? 1 : 0)
    }

    /// A store fault that made a request or probe fail (`latchkey_store_faults_total`, by `reason`:
    /// `unavailable`, `full`, ...).
    package func recordStoreFault(_ reason: String) {
        storeFaultCounter(reason).increment()
    }

    private func storeFaultCounter(_ reason: String) -> Counter {
        storeFailures.withLock { counters in
            if let counter = counters[reason] { return counter }
            let counter = Counter(label: "latchkey_store_faults_total", dimensions: [("reason", reason)], factory: factory)
            counters[reason] = counter
            return counter
        }
    }

    package func recordLiveRecords(_ counts: LiveRecordCounts) {
        pendingCeremonies.record(counts.pendingCeremonies)
        liveSessions.record(counts.sessions)
    }
}
