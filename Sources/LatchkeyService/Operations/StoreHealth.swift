import Foundation
import LatchkeyStore
import Logging
import Synchronization

/// Whether the store takes writes, as `/readyz` reports it to load balancers.
///
/// How it is probed, and why: a read says nothing of a full disk or a read-only replica, so the
/// probe is a write: one row of `store_health` rewritten in its own transaction
/// (``LatchkeyStore/checkWritable(now:)``), tens of microseconds on SQLite and one round trip on
/// PostgreSQL. It runs when asked rather than on a timer, so an idle instance costs nothing and
/// the answer is never older than ``reuseInterval``: balancers poll every few seconds, and more
/// frequent askers (a flood of `/readyz`) share one probe a second. Each probe is bounded by
/// `timeout` (`storeTimeout`), so an unreachable PostgreSQL is a 503 in that time, not a hang.
/// Requests that meet a store fault mark the store unwritable at once, so the next answer is a
/// 503 without waiting for the probe; the next successful probe makes it 200 again.
package final class StoreHealth: Sendable {
    package struct Verdict: Sendable, Equatable {
        package let writable: Bool
        /// A short phrase for the reply; the details go to the log.
        package let reason: String
    }

    package let store: any LatchkeyStore
    package let timeout: Duration
    package let metrics: LatchkeyMetrics
    /// How long one probe's verdict answers every asker.
    package static let reuseInterval: TimeInterval = 1

    private let last = Mutex<(verdict: Verdict, at: ContinuousClock.Instant)?>(nil)

    /// The store took writes when it was opened (migrations, signing keys), so the gauge starts at 1, not
    /// at 0 until someone asks `/readyz`.
    package init(store: any LatchkeyStore, timeout: Duration, metrics: LatchkeyMetrics) {
        self.store = store
        self.timeout = timeout
        self.metrics = metrics
        metrics.recordStoreWritable(true)
    }

    /// The verdict of a probe made within ``reuseInterval``, or of a new one (bounded by `timeout`).
    package func check(logger: Logger) async -> Verdict {
        let now = ContinuousClock.now
        if let recent = last.withLock({ $0 }), now - recent.at < .seconds(Self.reuseInterval) {
            return recent.verdict
        }
        let verdict: Verdict
        do {
            try await probe()
            verdict = Verdict(writable: true, reason: "")
        } catch {
            verdict = Verdict(writable: false, reason: Self.phrase(for: error))
            metrics.recordStoreFault(Self.faultReason(of: error))
            logger.error("readiness: the store cannot take writes", metadata: ["error": "\(error)"])
        }
        record(verdict, at: now, logger: logger)
        return verdict
    }

    /// A request met a store fault: not ready until a probe succeeds.
    package func recordFault(_ error: StoreError, logger: Logger) {
        metrics.recordStoreFault(Self.faultReason(of: error))
        record(Verdict(writable: false, reason: Self.phrase(for: error)), at: .now, logger: logger)
    }

    private func record(_ verdict: Verdict, at instant: ContinuousClock.Instant, logger: Logger) {
        let previous = last.withLock { last in
            defer { last = (verdict, instant) }
            return last?.verdict
        }
        metrics.recordStoreWritable(verdict.writable)
        // The store took writes when the server started (it migrated it), so the first fault is a change too.
        guard (previous?.writable ?? true) != verdict.writable else { return }
        if verdict.writable {
            logger.notice("the store takes writes again")
        } else {
            logger.notice("the store stopped taking writes", metadata: ["reason": "\(verdict.reason)"])
        }
    }

    /// The write, or a timeout error when it takes longer than `timeout`. The write is not waited
    /// for past the deadline (a SQLite write waiting for a lock cannot be cancelled); it finishes
    /// on its own.
    private func probe() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome = FirstOutcome(continuation)
            Task { [store] in
                do {
                    try await store.checkWritable(now: Date())
                    outcome.settle(.success(()))
                } catch {
                    outcome.settle(.failure(error))
                }
            }
            Task { [timeout] in
                try? await Task.sleep(for: timeout)
                outcome.settle(.failure(StoreError(.unavailable, "the store did not take a write within \(timeout)")))
            }
        }
    }

    package static func phrase(for error: any Error) -> String {
        switch (error as? StoreError)?.code {
        case .full?: "the store is full"
        case .unavailable?: "the store cannot take writes"
        case .busy?: "another process holds the store's lock"
        default: "the store does not answer"
        }
    }

    /// The `reason` label of `latchkey_store_faults_total`: the store error's class (`full`,
    /// `unavailable`, ...), or `other`.
    package static func faultReason(of error: any Error) -> String {
        (error as? StoreError)?.code.description ?? "other"
    }
}

/// Resumes a continuation with the first outcome it is given and ignores the rest.
private final class FirstOutcome: Sendable {
    private let continuation: Mutex<CheckedContinuation<Void, any Error>?>

    package init(_ continuation: CheckedContinuation<Void, any Error>) {
        self.continuation = Mutex(continuation)
    }

    package func settle(_ result: Result<Void, any Error>) {
        let waiting = continuation.withLock { continuation in
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(with: result)
    }
}
