import Foundation

/// A tenant as the store keeps it: its ID, the host names whose requests are its (each host one tenant's at most,
/// across the store) and its settings, the JSON text of the configuration keys it sets.
public struct TenantRecord: Sendable, Equatable {
    public var id: TenantID
    public var hosts: [String]
    /// A JSON object in the configuration's names, read over the server's configuration at every start.
    public var settings: [UInt8]
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: TenantID, hosts: [String], settings: [UInt8], createdAt: Date, updatedAt: Date) {
        (self.id, self.hosts, self.settings, self.createdAt, self.updatedAt) = (id, hosts, settings, createdAt, updatedAt)
    }
}

/// Every tenant the store keeps, as of one revision.
public struct TenantDirectoryRecord: Sendable, Equatable {
    /// Moves on with every change of a tenant: an instance that has read this revision has every change until it.
    public var revision: Int64
    /// By ID.
    public var tenants: [TenantRecord]

    public init(revision: Int64, tenants: [TenantRecord]) {
        (self.revision, self.tenants) = (revision, tenants)
    }
}

/// The tenants of a store, which every tenant's store shares: these calls span tenants, whatever
/// ``LatchkeyStore/tenant`` is, and their events are written in the calling store's tenant (an operator's, the
/// default). The default tenant is the server configuration's and is never stored here.
public protocol TenantStore: Sendable {
    /// Every tenant and the revision they are of, read in one snapshot.
    func tenantDirectory() async throws -> TenantDirectoryRecord
    /// The directory's revision alone: one small read, for instances that poll for changes.
    func tenantRevision() async throws -> Int64
    /// The tenant with this ID, if any.
    func tenant(id: TenantID) async throws -> TenantRecord?
    /// Stores a new tenant; throws ``StoreError/Code/nameTaken`` when its ID exists or one of its hosts is another
    /// tenant's, writing nothing.
    func createTenant(_ tenant: TenantRecord, recording events: [SecurityEvent]) async throws
    /// Replaces a tenant's hosts, settings and update time when it is still `previous` (compare and set); false when
    /// it is not, or is gone. Throws ``StoreError/Code/nameTaken`` when a host is another tenant's.
    func updateTenant(_ tenant: TenantRecord, from previous: TenantRecord, recording events: [SecurityEvent]) async throws -> Bool
    /// Removes the tenant and, in the same transaction, everything it kept: users, passkeys, sessions, challenges,
    /// tickets, device and App Attest keys, admin and signing keys, secrets, events, webhook deliveries, OpenID clients and
    /// grants. False
    /// when there was no such tenant.
    func deleteTenant(id: TenantID, recording events: [SecurityEvent]) async throws -> Bool
}

extension TenantStore {
    /// The tables that hold a tenant's rows, children before the rows they name.
    public static var tenantTables: [String] {
        [
            "oauth_grants", "oauth_consents", "oauth_device_authorizations", "oauth_clients", "user_contacts", "user_groups", "sessions", "enrollment_tickets", "device_keys", "credentials", "pending_ceremonies", "webhook_deliveries",
            "security_events", "users", "admin_keys", "signing_keys", "app_attest_keys", "secrets", "daily_statistics",
            "statistics_users",
        ]
    }
}
