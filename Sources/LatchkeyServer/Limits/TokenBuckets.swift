import Foundation
import LatchkeyService
import Synchronization

/// A token bucket per client: each holds up to `burst` tokens and gains `rate` a second; a request
/// takes one, and finds the bucket empty when the client went faster than `rate` for longer than
/// `burst` allows. Buckets refilled to full are forgotten, so memory follows the clients active in
/// the last `burst / rate` seconds. Counts are this process's own.
final class TokenBuckets: Sendable {
    /// The sustained requests a second each client may make.
    let rate: Double
    /// How many requests a client may make at once after being quiet.
    let burst: Double

    private struct Bucket {
        var tokens: Double
        var updated: TimeInterval
    }

    private struct State {
        var buckets: [ClientAddress: Bucket] = [:]
        var lastSweep: TimeInterval = 0
    }

    private let state = Mutex(State())
    /// Above this many buckets, full ones are swept out (at most once a second).
    private let sweepThreshold: Int

    init(rate: Int, burst: Int, sweepThreshold: Int = 10_000) {
        self.rate = Double(rate)
        self.burst = Double(max(burst, 1))
        self.sweepThreshold = sweepThreshold
    }

    /// What a request found.
    enum Decision: Equatable {
        case allowed
        /// Refused; a token is back after this many seconds (at least 1).
        case refused(retryAfter: Int)
    }

    /// Takes a token from `client`'s bucket at `now` (seconds on any steady clock).
    func take(for client: ClientAddress, now: TimeInterval = ProcessInfo.processInfo.systemUptime) -> Decision {
        state.withLock { state in
            var bucket = state.buckets[client] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + max(0, now - bucket.updated) * rate)
            bucket.updated = now
            let decision: Decision
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                decision = .allowed
            } else {
                decision = .refused(retryAfter: max(1, Int(((1 - bucket.tokens) / rate).rounded(.up))))
            }
            state.buckets[client] = bucket
            if state.buckets.count > sweepThreshold, now - state.lastSweep >= 1 {
                state.lastSweep = now
                state.buckets = state.buckets.filter { $0.value.tokens + (now - $0.value.updated) * rate < burst }
            }
            return decision
        }
    }

    /// How many clients have a bucket that is not full, or was not swept yet.
    var trackedClients: Int { state.withLock { $0.buckets.count } }
}
