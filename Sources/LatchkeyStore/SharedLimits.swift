/// A client's counting key within one tenant: the tenant and the client address's text
/// (`203.0.113.7`, `2001:db8:1:2::/64`).
public struct LimitedClient: Hashable, Sendable {
    public var tenant: TenantID
    public var client: String

    public init(tenant: TenantID, client: String) {
        self.tenant = tenant
        self.client = client
    }
}

/// What one instance tells a shared store of its limit counting since its last report (``SharedLimitsStore``).
public struct LimitReport: Sendable, Equatable {
    /// Requests one client made to the limited endpoints through this instance since the last report, and the bucket
    /// they drew on.
    public struct Draw: Sendable, Equatable {
        public var client: LimitedClient
        /// Tokens taken (one per request allowed).
        public var tokens: Double
        /// The bucket's refill a second and size.
        public var rate: Double
        public var burst: Double

        public init(client: LimitedClient, tokens: Double, rate: Double, burst: Double) {
            self.client = client
            self.tokens = tokens
            self.rate = rate
            self.burst = burst
        }
    }

    public var draws: [Draw]
    /// Clients with at least this many challenges pending through other instances are reported back one by one
    /// (``LimitSnapshot/pendingElsewhere``); fewer are only counted in the tenant's total.
    public var pendingThreshold: Int

    public init(draws: [Draw], pendingThreshold: Int = 2) {
        self.draws = draws
        self.pendingThreshold = pendingThreshold
    }
}

/// What every instance together has counted, as the store saw it when it took a ``LimitReport``.
public struct LimitSnapshot: Sendable, Equatable {
    /// The shared bucket of every client in the report, and of every client whose bucket is empty (fewer than one token):
    /// the tokens it holds now (below zero when instances together took more than it had).
    public var buckets: [LimitedClient: Double]
    /// Challenges pending (issued, neither answered nor expired) that other instances issued, per client at or over the
    /// report's threshold.
    public var pendingElsewhere: [LimitedClient: Int]
    /// Challenges pending that other instances issued, per tenant.
    public var pendingElsewhereByTenant: [TenantID: Int]

    public init(buckets: [LimitedClient: Double], pendingElsewhere: [LimitedClient: Int], pendingElsewhereByTenant: [TenantID: Int]) {
        self.buckets = buckets
        self.pendingElsewhere = pendingElsewhere
        self.pendingElsewhereByTenant = pendingElsewhereByTenant
    }
}

/// A store several instances share, through which their rate limits and pending-challenge caps are counted together:
/// each instance counts in memory and reconciles with the others every second or so, in one call that spans every
/// tenant. (A store one process owns, SQLite, has no need for it.)
public protocol SharedLimitsStore: Sendable {
    /// This instance's name in the store: the pending challenges it stores carry it, so that ``reconcileLimits(_:)``
    /// counts only the other instances'.
    var instance: String { get }

    /// Takes `report`'s draws from the shared buckets (each refilled at its rate since it was last drawn on, never
    /// beyond its size), forgets buckets that are full again, and reads what the other instances count.
    func reconcileLimits(_ report: LimitReport) async throws -> LimitSnapshot
}
