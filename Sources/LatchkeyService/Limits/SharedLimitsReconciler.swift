import Foundation
import LatchkeyStore
import Logging
import ServiceLifecycle

/// Counts every tenant's rate limits and challenge caps together with the other instances on a shared store: every
/// ``interval`` it reports the tokens each client took here since the last report and takes back what all instances
/// count (the shared buckets, the challenges pending elsewhere). A request never waits for the store: it is decided by
/// the local count, which is at most one interval behind the others'. So a client spreading its requests over N
/// instances gets through at most what one interval's local buckets hold beyond the limit, and one limited on one
/// instance is limited on all within an interval.
package struct SharedLimitsReconciler: Service {
    package let store: any SharedLimitsStore
    package let limits: ClientLimits
    package let logger: Logger
    package var interval: Duration

    package init(store: any SharedLimitsStore, limits: ClientLimits, logger: Logger, interval: Duration = .seconds(1)) {
        self.store = store
        self.limits = limits
        self.logger = logger
        self.interval = interval
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            var failing = false
            while !Task.isCancelled {
                do {
                    try await reconcile()
                    if failing { logger.info("counting limits with the other instances again") }
                    failing = false
                } catch {
                    // Once per failing spell: each instance goes on counting alone meanwhile.
                    if !failing { logger.warning("could not count limits with the other instances", metadata: ["error": "\(error)"]) }
                    failing = true
                }
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return  // shutting down
                }
            }
        }
    }

    /// One report and what it brings back. When the store fails, the draws go with the next report.
    package func reconcile() async throws {
        // Asked even before any tenant was served here: the empty buckets come back, and buckets made later start from them.
        let tenants = limits.all
        let draws = tenants.compactMap { tenant, buckets, _ in buckets.map { (tenant, $0, $0.takeDraws()) } }
        var report = LimitReport(draws: draws.flatMap { tenant, buckets, taken in
            taken.map { LimitReport.Draw(client: LimitedClient(tenant: tenant, client: $0.key.key), tokens: $0.value, rate: buckets.rate, burst: buckets.burst) }
        })
        let perClientCaps = tenants.compactMap { $0.caps?.perClient }.filter { $0 > 0 }
        report.pendingThreshold = min(2, perClientCaps.min() ?? 2)
        let snapshot: LimitSnapshot
        do {
            snapshot = try await store.reconcileLimits(report)
        } catch {
            for (_, buckets, taken) in draws { buckets.returnDraws(taken) }
            throw error
        }
        var shared: [TenantID: [ClientAddress: Double]] = [:]
        for (client, tokens) in snapshot.buckets { shared[client.tenant, default: [:]][ClientAddress(key: client.client)] = tokens }
        limits.remember(shared: shared)
        var elsewhere: [TenantID: [ClientAddress: Int]] = [:]
        for (client, count) in snapshot.pendingElsewhere { elsewhere[client.tenant, default: [:]][ClientAddress(key: client.client)] = count }
        for (tenant, buckets, caps) in tenants {
            if let buckets, let tokens = shared[tenant] { buckets.reconcile(shared: tokens) }
            caps?.countElsewhere(perClient: elsewhere[tenant] ?? [:], total: snapshot.pendingElsewhereByTenant[tenant] ?? 0)
        }
    }
}

extension SharedLimitsReconciler: CustomStringConvertible {
    package var description: String { "SharedLimitsReconciler" }
}
