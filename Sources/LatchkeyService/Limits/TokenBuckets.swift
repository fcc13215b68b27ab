import Foundation
import Synchronization

/// A token bucket per client: each holds up to `burst` tokens and gains `rate` a second; a request
/// takes one, and finds the bucket empty when the client went faster than `rate` for longer than
/// `burst` allows. Buckets refilled to full are forgotten, so memory follows the clients active in
/// the last `burst / rate` seconds.
///
/// On its own it counts this process's requests. Buckets made ``sharing`` count together with other
/// instances' through ``takeDraws()`` and ``reconcile(shared:now:)``: every second or so the tokens taken
/// here go to the store's shared buckets, and each local bucket becomes its shared one less what was
/// taken here since. (Others keep no draws: nobody would take them.)
package final class TokenBuckets: Sendable {
    /// The sustained requests a second each client may make.
    package let rate: Double
    /// How many requests a client may make at once after being quiet.
    package let burst: Double
    /// Whether the tokens taken are kept for ``takeDraws()``, to be reconciled with other instances'.
    package let sharing: Bool

    private struct Bucket {
        var tokens: Double
        var updated: TimeInterval
    }

    private struct State {
        var buckets: [ClientAddress: Bucket] = [:]
        var lastSweep: TimeInterval = 0
        /// Tokens taken since the last ``takeDraws()``, per client.
        var draws: [ClientAddress: Double] = [:]
    }

    private let state = Mutex(State())
    /// Above this many buckets, full ones are swept out (at most once a second).
    private let sweepThreshold: Int

    /// Seconds on a steady clock: the process's uptime, or a clock a test controls.
    package let clock: @Sendable () -> TimeInterval

    package init(
        rate: Int, burst: Int, sharing: Bool = false, sweepThreshold: Int = 10_000,
        clock: @escaping @Sendable () -> TimeInterval = { ProcessInfo.processInfo.systemUptime }
    ) {
        self.rate = Double(rate)
        self.burst = Double(max(burst, 1))
        self.sharing = sharing
        self.sweepThreshold = sweepThreshold
        self.clock = clock
    }

    /// Whether these are the buckets `rate` and `burst` make.
    package func have(rate: Int, burst: Int) -> Bool {
        self.rate == Double(rate) && self.burst == Double(max(burst, 1))
    }

    /// What a request found.
    package enum Decision: Equatable {
        case allowed
        /// Refused; a token is back after this many seconds (at least 1).
        case refused(retryAfter: Int)
    }

    /// Takes a token from `client`'s bucket at `now` (seconds on the ``clock``; by default its reading).
    package func take(for client: ClientAddress, now: TimeInterval? = nil) -> Decision {
        let now = now ?? clock()
        return state.withLock { state in
            var bucket = state.buckets[client] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + max(0, now - bucket.updated) * rate)
            bucket.updated = now
            let decision: Decision
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                if sharing { state.draws[client, default: 0] += 1 }
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

    /// The tokens each client took since the last call, which the caller now owns: it reports them, and hands them back
    /// (``returnDraws(_:)``) when the report fails.
    package func takeDraws() -> [ClientAddress: Double] {
        state.withLock { state in
            defer { state.draws = [:] }
            return state.draws
        }
    }

    /// Counts again draws a failed report did not deliver, to go with the next one.
    package func returnDraws(_ draws: [ClientAddress: Double]) {
        state.withLock { state in state.draws.merge(draws, uniquingKeysWith: +) }
    }

    /// Sets each of `shared`'s clients' buckets to the tokens its shared bucket holds (below zero when instances
    /// together overdrew it), less what was taken here since the draws it includes were taken.
    package func reconcile(shared: [ClientAddress: Double], now: TimeInterval? = nil) {
        let now = now ?? clock()
        state.withLock { state in
            for (client, tokens) in shared {
                state.buckets[client] = Bucket(tokens: min(burst, tokens) - state.draws[client, default: 0], updated: now)
            }
        }
    }

    /// How many clients have a bucket that is not full, or was not swept yet.
    package var trackedClients: Int { state.withLock { $0.buckets.count } }
}
