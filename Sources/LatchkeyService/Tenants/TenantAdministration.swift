import Foundation
import LatchkeyConfiguration
import LatchkeyJSON
import LatchkeyStore
import WebAuthn

/// What an operator does with tenants (`/admin/v1/tenants`, behind an operator key): make, read, change and remove
/// them. Each document is checked as `check-config` checks the configuration file, over the server's configuration
/// (the default tenant's, this service's), and the store keeps what was given; every instance on the store serves a
/// change within ``TenantDirectoryWatcher``'s interval. Changes are events of the default tenant, the operator's.
package struct TenantAdministration: Sendable {
    let service: RelyingPartyService

    private var store: any LatchkeyStore { service.store }
    private var server: LatchkeyConfiguration { service.configuration }

    /// Every stored tenant, by ID; one whose settings the server's configuration no longer admits is listed with
    /// its problems.
    package func tenants() async throws -> [StoredTenant] {
        try await store.tenantDirectory().tenants.map(stored)
    }

    /// The tenant `id` names.
    package func tenant(_ id: String) async throws -> StoredTenant {
        let tenantID = try Self.existingID(id)
        guard let record = try await store.tenant(id: tenantID) else { throw Self.notFound(id) }
        return stored(record)
    }

    /// Makes a tenant from its document (`{"id", "rpID", "hosts", ...}`) with its first token signing key.
    package func create(_ document: [String: JSONValue], caller: Caller) async throws -> StoredTenant {
        guard case .string(let id)? = document["id"] else { throw ServiceError.invalid("id: a tenant needs an id (a string)") }
        let tenantID = try Self.newID(id)
        let settings = try self.settings { () throws(ConfigurationError) in try TenantSettings(document: document, server: server) }
        try checkHosts(of: settings)
        let now = Date()
        let record = Tenant.record(of: settings, id: tenantID, createdAt: now, now: now)
        try await refusingTaken(id) {
            try await store.createTenant(record, recording: [event(.tenantCreated, tenantID, caller, now: now)])
        }
        try await SigningKeys.prepare(
            store.scoped(to: tenantID, webhooks: settings.configuration.webhookOutbox), configuration: settings.configuration)
        caller.logger.notice("tenant created", metadata: ["tenant": "\(tenantID)", "hosts": "\(settings.hosts.joined(separator: ","))"])
        return stored(record)
    }

    /// Applies `changes` to a tenant: a member given replaces the tenant's, `null` removes it.
    package func update(_ id: String, changes: [String: JSONValue], caller: Caller) async throws -> StoredTenant {
        let tenantID = try Self.existingID(id)
        guard let previous = try await store.tenant(id: tenantID) else { throw Self.notFound(id) }
        let current = try self.settings { () throws(ConfigurationError) in try Tenant(previous, server: server).settings }
        guard let current else { throw ServiceError.internalInvariant("a stored tenant without settings") }
        let changed = try self.settings { () throws(ConfigurationError) in try current.patched(with: changes, server: server) }
        try checkHosts(of: changed)
        let now = max(Date(), previous.updatedAt)
        let record = Tenant.record(of: changed, id: tenantID, createdAt: previous.createdAt, now: now)
        let updated = try await refusingTaken(id) {
            try await store.updateTenant(record, from: previous, recording: [event(.tenantUpdated, tenantID, caller, now: now)])
        }
        guard updated else { throw ServiceError(.conflict, "tenant \(id) changed meanwhile; read it again and retry") }
        caller.logger.notice("tenant changed", metadata: ["tenant": "\(tenantID)"])
        return stored(record)
    }

    /// Removes a tenant and everything it kept; its removal event (in the default tenant's events) is what remains.
    package func delete(_ id: String, caller: Caller) async throws {
        let tenantID = try Self.existingID(id)
        guard try await store.deleteTenant(id: tenantID, recording: [event(.tenantDeleted, tenantID, caller, now: Date())]) else {
            throw Self.notFound(id)
        }
        caller.logger.notice("tenant removed with everything it kept", metadata: ["tenant": "\(tenantID)"])
    }

    // MARK: Helpers

    /// A stored tenant and, when it no longer reads over the server's configuration, why.
    private func stored(_ record: TenantRecord) -> StoredTenant {
        do throws(ConfigurationError) {
            return StoredTenant(record: record, settings: try Tenant(record, server: server).settings, problems: [])
        } catch {
            return StoredTenant(record: record, settings: nil, problems: error.problems)
        }
    }

    private func settings<T>(_ read: () throws(ConfigurationError) -> T) throws(ServiceError) -> T {
        do throws(ConfigurationError) {
            return try read()
        } catch {
            throw ServiceError.invalid(error.problems.joined(separator: "; "))
        }
    }

    /// The default tenant's hosts are the configuration's, and the server's own are the server's: no other tenant may
    /// list one.
    private func checkHosts(of settings: TenantSettings) throws(ServiceError) {
        // Its configured hosts, and those its RP ID and origins name (with no `hosts`, every host is its).
        let originHosts = server.origins.compactMap { URL(string: $0)?.host }
        let defaults = Set((server.hosts + originHosts + [server.rpID.value]).map(TenantRouting.hostName))
        if let taken = settings.hosts.first(where: { defaults.contains(TenantRouting.hostName($0)) }) {
            throw ServiceError(.conflict, "hosts (tenant \(settings.id)): \(taken) is the default tenant's (its hosts, RP ID or origins)")
        }
        if let taken = settings.hosts.first(where: { server.ownHosts.contains(TenantRouting.hostName($0)) }) {
            throw ServiceError(
                .conflict, "hosts (tenant \(settings.id)): \(taken) is the server's own (the console's origin or a listener's address)")
        }
    }

    private func refusingTaken<T>(_ id: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as StoreError where error.code == .nameTaken {
            throw ServiceError(.conflict, "tenant \(id): \(error.message)")
        }
    }

    private func event(_ type: SecurityEventType, _ tenant: TenantID, _ caller: Caller, now: Date) throws -> SecurityEvent {
        SecurityEvent(
            id: try SecurityEventRecorder.newID(), type: type, occurredAt: now, clientAddress: caller.origin.clientAddress,
            userAgent: caller.origin.userAgent, requestID: caller.origin.requestID, actor: caller.origin.actor, detail: "tenant \(tenant)")
    }

    /// The ID of a tenant to make: a tenant ID that is not the default's.
    private static func newID(_ id: String) throws(ServiceError) -> TenantID {
        if let problem = TenantID.problem(with: id) { throw ServiceError.invalid("id: \(problem); \(id.debugDescription) is not") }
        guard let tenantID = TenantID(id), tenantID != .default else {
            throw ServiceError.invalid("id: \"default\" is the tenant the server's configuration defines; choose another id")
        }
        return tenantID
    }

    /// The ID of a stored tenant: anything else names none.
    private static func existingID(_ id: String) throws(ServiceError) -> TenantID {
        guard let tenantID = TenantID(id), tenantID != .default else { throw notFound(id) }
        return tenantID
    }

    private static func notFound(_ id: String) -> ServiceError {
        if id == TenantID.default.rawValue {
            return ServiceError(.notFound, "the default tenant is the server's configuration, not a stored tenant")
        }
        return ServiceError(.notFound, "there is no tenant \(id.debugDescription)")
    }
}

/// A stored tenant as the tenants API shows it.
package struct StoredTenant: Sendable {
    package let record: TenantRecord
    /// Nil when the stored settings no longer read over the server's configuration (``problems`` says why).
    package let settings: TenantSettings?
    package let problems: [String]
}

extension RelyingPartyService {
    package var tenantAdministration: TenantAdministration { TenantAdministration(service: self) }
}
