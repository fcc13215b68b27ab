import Foundation
import LatchkeyStore
import Synchronization

/// The rate limits and pending-challenge caps of every tenant this process serves, one set per tenant: kept while a
/// tenant's services are made again (its settings changed), and reconciled with other instances' through a shared store
/// (``SharedLimitsReconciler``).
package final class ClientLimits: Sendable {
    private struct Limits {
        var buckets: TokenBuckets?
        var caps: PendingChallengeCaps?
    }

    private let tenants = Mutex<[TenantID: Limits]>([:])
    /// The shared buckets the last reconcile brought back (``SharedLimitsReconciler``), per tenant: new buckets start
    /// from them, so a tenant this instance had not served, or whose limits changed, does not start every client full.
    private let lastShared = Mutex<[TenantID: [ClientAddress: Double]]>([:])
    /// Whether the counts are reconciled with other instances' (``SharedLimitsReconciler``), so the buckets keep
    /// their draws for it.
    package let sharing: Bool

    /// The clock every tenant's buckets refill by (seconds, steady).
    private let clock: @Sendable () -> TimeInterval

    /// Limits counted alone, or with other instances' when `sharing`; buckets refill by `clock` (the process's uptime
    /// unless a test holds time still).
    package init(sharing: Bool = false, clock: @escaping @Sendable () -> TimeInterval = { ProcessInfo.processInfo.systemUptime }) {
        self.sharing = sharing
        self.clock = clock
    }

    /// `tenant`'s token buckets: the ones it has when they have this rate and burst, else new ones.
    package func buckets(for tenant: TenantID, rate: Int, burst: Int) -> TokenBuckets {
        tenants.withLock { tenants in
            if let buckets = tenants[tenant]?.buckets, buckets.have(rate: rate, burst: burst) { return buckets }
            let buckets = TokenBuckets(rate: rate, burst: burst, sharing: sharing, clock: clock)
            if sharing, let shared = lastShared.withLock({ $0[tenant] }) { buckets.reconcile(shared: shared) }
            tenants[tenant, default: Limits()].buckets = buckets
            return buckets
        }
    }

    /// `tenant`'s challenge caps: the ones it has when they have these limits, else new ones.
    package func caps(for tenant: TenantID, perClient: Int, total: Int) -> PendingChallengeCaps {
        tenants.withLock { tenants in
            if let caps = tenants[tenant]?.caps, caps.perClient == perClient, caps.total == total { return caps }
            let caps = PendingChallengeCaps(perClient: perClient, total: total)
            tenants[tenant, default: Limits()].caps = caps
            return caps
        }
    }

    /// Keeps what the shared store said of every tenant's buckets, for the buckets made before the next reconcile.
    package func remember(shared: [TenantID: [ClientAddress: Double]]) {
        lastShared.withLock { $0 = shared }
    }

    /// Every tenant's buckets and caps, those it has.
    package var all: [(tenant: TenantID, buckets: TokenBuckets?, caps: PendingChallengeCaps?)] {
        tenants.withLock { tenants in tenants.map { ($0.key, $0.value.buckets, $0.value.caps) } }
    }
}
