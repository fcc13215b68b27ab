import Foundation
import LatchkeyConfiguration
import LatchkeyStore
import Logging
import ServiceLifecycle
import Synchronization
import WebAuthn

/// Every relying party one server serves, each a ``RelyingPartyService`` made by one recipe: the default tenant's
/// (``shared``: the configuration's, which background work shares), each stored tenant's (``service(of:)``: made on
/// its first use and kept until its record changes, or until ``capacity`` others were used since, the one used
/// longest ago making way), and the operators' (``operators``: the console's relying party). Every service shares the
/// store (scoped to its tenant), the attestation trust (with its own tenant's policy), the App Attest roots, the
/// authenticator names, the metrics and the client limits. It serves the store's tenant directory (``directory``),
/// which ``TenantDirectoryWatcher`` keeps current, and ``TenantWebhookDispatchers`` sends each tenant's webhooks.
package final class RelyingParties: Sendable {
    /// The default tenant's service.
    package let shared: RelyingPartyService
    /// The operators' service (their passkeys and sessions, kept apart from every tenant), when the console has an
    /// origin.
    package let operators: RelyingPartyService?
    /// The most tenants other than the default whose services are kept at once.
    package let capacity: Int

    /// What every tenant's service is made with.
    private let store: any LatchkeyStore
    private let trust: AttestationTrust
    private let appAttestRoots: [X509Certificate]
    private let state: Mutex<State>

    /// One stored tenant's service, with the record it was made from.
    private struct Entry {
        let record: TenantRecord
        let service: RelyingPartyService
        /// When it was last used, in ``State/uses``.
        var lastUsed: UInt64
    }

    private struct State {
        var directory: TenantDirectory
        var entries: [TenantID: Entry] = [:]
        /// Services handed out so far: the clock of ``Entry/lastUsed``.
        var uses: UInt64 = 0
        /// The tenants whose record cannot be served, and why: refused without reading the record again.
        var unservable: [TenantID: (record: TenantRecord, reason: String)] = [:]
    }

    /// Why a tenant has no service.
    package enum Refusal: Error, Equatable {
        /// The served directory has no such tenant (made since on another instance: served within a second).
        case unknownTenant(TenantID)
        /// Its stored settings no longer read over the server's configuration: said once in the log, then remembered.
        case unservable(TenantID, because: String)
    }

    /// The relying parties of a server with `configuration` over `store`, serving `directory` (the default tenant's
    /// alone unless given), with the operators' relying party when `withOperators` and the console has an origin.
    package init(
        configuration: LatchkeyConfiguration, store: any LatchkeyStore, attestationTrust: AttestationTrust, appAttestRoots: [X509Certificate] = [],
        names: AuthenticatorNames = AuthenticatorNames(), metrics: LatchkeyMetrics = LatchkeyMetrics(), operations: OperationsFeatures = .on,
        limits: ClientLimits = ClientLimits(), directory: TenantDirectory? = nil, withOperators: Bool = false, capacity: Int = 1_000
    ) throws {
        self.store = store
        trust = attestationTrust
        self.appAttestRoots = appAttestRoots
        self.capacity = max(capacity, 1)
        shared = RelyingPartyService(
            configuration: configuration, store: store, attestationTrust: attestationTrust, appAttestRoots: appAttestRoots, metrics: metrics,
            operations: operations, authenticatorNames: names, limits: limits)
        if withOperators, !configuration.consoleOrigin.isEmpty {
            operators = RelyingPartyService(
                configuration: try OperatorRelyingParty.configuration(server: configuration),
                store: Self.operatorsStore(in: shared.store), attestationTrust: attestationTrust, appAttestRoots: [], metrics: metrics,
                operations: operations, authenticatorNames: names, limits: limits)
        } else {
            operators = nil
        }
        state = Mutex(State(directory: directory ?? TenantDirectory(server: configuration)))
    }

    // MARK: The recipe

    /// A stored tenant's service: its configuration over the server's, the store scoped to it and its webhook outbox,
    /// its attestation policy over the server's trust anchors, and everything else the default tenant's.
    package func service(of tenant: Tenant) -> RelyingPartyService {
        var tenantTrust = trust
        tenantTrust.policy = tenant.configuration.attestation
        return RelyingPartyService(
            configuration: tenant.configuration, store: Self.store(of: tenant, in: store), attestationTrust: tenantTrust,
            appAttestRoots: appAttestRoots, metrics: shared.metrics, operations: shared.operations, authenticatorNames: shared.names,
            limits: shared.limits)
    }

    /// `store` as a stored tenant's: its records only, its events delivered to its own webhook receivers. What the
    /// server's services, its webhook dispatchers and the command line use alike.
    package static func store(of tenant: Tenant, in store: any LatchkeyStore) -> any LatchkeyStore {
        store.scoped(to: tenant.id, webhooks: tenant.configuration.webhookOutbox)
    }

    /// `store` as the operators': their accounts, keys and sessions, with no webhooks.
    package static func operatorsStore(in store: any LatchkeyStore) -> any LatchkeyStore {
        store.scoped(to: .operators, webhooks: .none)
    }

    // MARK: What runs beside the listeners

    /// The work that runs for the relying parties while the server does: the purge of expired records (and of events
    /// past their retention), the default tenant's webhook dispatcher, the watcher of the tenant directory, and every
    /// other tenant's dispatchers, each sending through a transport `makeTransport` makes.
    package func backgroundServices(makeTransport: @escaping @Sendable () -> any WebhookTransport, logger: Logger) throws -> [any Service] {
        let configuration = shared.configuration
        return [
            ExpiredRecordPurger(
                store: shared.store, metrics: shared.metrics, logger: logger,
                eventRetention: TimeInterval(configuration.eventRetentionDays) * 86_400),
            try WebhookDispatcher(
                store: shared.store, configuration: configuration, metrics: shared.metrics, logger: logger, makeTransport: makeTransport),
            TenantDirectoryWatcher(relyingParties: self, logger: logger),
            TenantWebhookDispatchers(relyingParties: self, makeTransport: makeTransport, logger: logger),
        ]
    }

    // MARK: The directory

    /// The directory being served.
    package var directory: TenantDirectory { state.withLock { $0.directory } }

    /// Serves `directory` from now on, when it is newer than the one served: a tenant whose stored record changed (or
    /// that is gone) gets a new service on its next use; the others keep theirs.
    package func update(to directory: TenantDirectory) {
        state.withLock { state in
            // Two refreshes racing: the older directory never replaces the newer.
            guard directory.revision > state.directory.revision else { return }
            state.entries = state.entries.filter { id, entry in directory.records[id] == entry.record }
            state.unservable = state.unservable.filter { id, unservable in directory.records[id] == unservable.record }
            state.directory = directory
        }
    }

    /// Reads the store's directory and serves it when it is newer; logs what it leaves out that it did not before.
    package func refresh(logger: Logger) async throws {
        let directory = TenantDirectory(server: shared.configuration, stored: try await shared.store.tenantDirectory())
        let served = self.directory
        guard directory.revision > served.revision else { return }
        for problem in directory.problems where !served.problems.contains(problem) { logger.warning("\(problem)") }
        update(to: directory)
        logger.info("tenants changed", metadata: ["tenants": "\(directory.records.count)", "revision": "\(directory.revision)"])
    }

    /// Reads the directory when the store's revision moved past the one served.
    package func refreshIfChanged(logger: Logger) async throws {
        guard try await shared.store.tenantRevision() > directory.revision else { return }
        try await refresh(logger: logger)
    }

    // MARK: Services by tenant

    /// The service of tenant `id` in the served directory: the shared one for the default tenant; for another, the one
    /// kept for its current record, or one made now (its settings read) and kept. A tenant whose settings no longer
    /// read is logged through `logger` once per record.
    package func service(for id: TenantID, logger: Logger) throws(Refusal) -> RelyingPartyService {
        if id == .default { return shared }
        let found = state.withLock { state -> Result<RelyingPartyService?, Refusal> in
            guard let record = state.directory.records[id] else { return .failure(.unknownTenant(id)) }
            if let unservable = state.unservable[id], unservable.record == record { return .failure(.unservable(id, because: unservable.reason)) }
            guard state.entries[id]?.record == record else { return .success(nil) }
            state.uses &+= 1
            state.entries[id]?.lastUsed = state.uses
            return .success(state.entries[id]?.service)
        }
        if let service = try found.get() { return service }
        return try make(id, logger: logger)
    }

    /// Whether `service` is the one kept for its tenant now (the default tenant's always is).
    package func isCurrent(_ service: RelyingPartyService) -> Bool {
        let id = service.store.tenant
        if id == .default || id == .operators { return service === shared || service === operators }
        return state.withLock { $0.entries[id]?.service === service }
    }

    /// How many tenants other than the default have their services kept now.
    package var keptTenants: Int { state.withLock { $0.entries.count } }

    /// Makes `id`'s service (outside the lock: its settings are read) and keeps it; of two made at once, the first kept.
    private func make(_ id: TenantID, logger: Logger) throws(Refusal) -> RelyingPartyService {
        let directory = self.directory
        guard let record = directory.records[id] else { throw .unknownTenant(id) }
        let tenant: Tenant
        do {
            tenant = try Tenant(record, server: directory.server)
        } catch {
            let reason = "its settings are no longer valid (GET /admin/v1/tenants/\(id) lists the problems)"
            if remember(id, record: record, unservable: reason) {
                logger.error("a tenant's settings no longer read over the server's configuration; it is refused until they change", metadata: [
                    "tenant": "\(id)", "problems": "\(error.problems.joined(separator: "; "))",
                ])
            }
            throw .unservable(id, because: reason)
        }
        let made = service(of: tenant)
        return state.withLock { state in
            // Changed meanwhile: this use gets what was made, and nothing is kept.
            guard state.directory.records[id] == record else { return made }
            if let entry = state.entries[id], entry.record == record { return entry.service }
            state.uses &+= 1
            state.entries[id] = Entry(record: record, service: made, lastUsed: state.uses)
            evictBeyondCapacity(&state)
            return made
        }
    }

    /// Forgets the services of the tenants used longest ago while more than ``capacity`` are kept (one scan of the
    /// kept tenants, only when a tenant's service is made). Their requests in flight finish with them; their next use
    /// makes new ones (their limits are kept: ``ClientLimits``).
    private func evictBeyondCapacity(_ state: inout State) {
        while state.entries.count > capacity {
            guard let stalest = state.entries.min(by: { $0.value.lastUsed < $1.value.lastUsed }) else { return }
            state.entries[stalest.key] = nil
        }
    }

    /// Remembers that `id`'s `record` cannot be served, for `reason`; false when it was remembered already.
    private func remember(_ id: TenantID, record: TenantRecord, unservable reason: String) -> Bool {
        state.withLock { state in
            guard state.directory.records[id] == record else { return false }
            if let known = state.unservable[id], known.record == record { return false }
            state.unservable[id] = (record, reason)
            return true
        }
    }
}
