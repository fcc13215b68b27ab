import Foundation
import LatchkeyStore
import LatchkeyStoreSQL

/// The tenants an operator made, across the store: these statements name the tenant they are about, never
/// `current_tenant()`, except for the events, which are the calling store's tenant's.
extension SQLiteStore {
    private static let allTenants = "SELECT id, settings, created_at, updated_at FROM tenants ORDER BY id"
    private static let allHosts = "SELECT host, tenant FROM tenant_hosts ORDER BY host"
    private static let tenantByID = "SELECT id, settings, created_at, updated_at FROM tenants WHERE id = ?"
    private static let hostsOfTenant = "SELECT host FROM tenant_hosts WHERE tenant = ? ORDER BY host"
    private static let revision = "SELECT revision FROM tenant_directory WHERE id = 1"
    private static let nextRevision = "UPDATE tenant_directory SET revision = revision + 1 WHERE id = 1"
    private static let insertTenant = "INSERT INTO tenants (id, settings, created_at, updated_at) VALUES (?, ?, ?, ?)"
    private static let insertHost = "INSERT INTO tenant_hosts (host, tenant) VALUES (?, ?)"
    private static let deleteHosts = "DELETE FROM tenant_hosts WHERE tenant = ?"
    private static let updateTenant = "UPDATE tenants SET settings = ?, updated_at = ? WHERE id = ?"
    private static let deleteTenant = "DELETE FROM tenants WHERE id = ?"

    public func tenantDirectory() async throws -> TenantDirectoryRecord {
        try await withTransaction { database in
            var hosts: [String: [String]] = [:]
            try database.withStatement(Self.allHosts) { row in
                while try row.step() { hosts[row.text(1), default: []].append(row.text(0)) }
            }
            let tenants = try database.withStatement(Self.allTenants) { row in
                var tenants: [TenantRecord] = []
                while try row.step() {
                    if let tenant = Self.tenant(row, hosts: { hosts[$0] ?? [] }) { tenants.append(tenant) }
                }
                return tenants
            }
            return TenantDirectoryRecord(revision: try Self.revision(in: database), tenants: tenants)
        }
    }

    public func tenantRevision() async throws -> Int64 {
        try await withDatabase { try Self.revision(in: $0) }
    }

    public func tenant(id: TenantID) async throws -> TenantRecord? {
        try await withDatabase { database in try Self.tenant(id, in: database) }
    }

    public func createTenant(_ tenant: TenantRecord, recording events: [SecurityEvent]) async throws {
        try await withTransaction { database in
            guard try Self.tenant(tenant.id, in: database) == nil else {
                throw StoreError(.nameTaken, "a tenant \"\(tenant.id)\" exists already")
            }
            // Rows a removed tenant of this ID left behind (written by a request still in flight as it was removed)
            // are not the new tenant's.
            try Self.deleteRows(of: tenant.id, in: database)
            try database.withStatement(Self.insertTenant) { statement in
                try statement.bind(tenant.id.rawValue, tenant.settings, tenant.createdAt, tenant.updatedAt)
                do {
                    try statement.step()
                } catch is SQLiteConstraintError {
                    throw StoreError(.nameTaken, "a tenant \"\(tenant.id)\" exists already")
                }
            }
            try Self.insertHosts(of: tenant, into: database)
            try database.execute(Self.nextRevision)
            try insert(events, into: database)
        }
    }

    public func updateTenant(_ tenant: TenantRecord, from previous: TenantRecord, recording events: [SecurityEvent]) async throws -> Bool {
        try await withTransaction { database in
            guard try Self.tenant(previous.id, in: database) == previous, tenant.id == previous.id else { return false }
            try database.withStatement(Self.updateTenant) { statement in
                try statement.bind(tenant.settings, tenant.updatedAt, previous.id.rawValue)
                try statement.step()
            }
            try database.withStatement(Self.deleteHosts) { statement in
                try statement.bind(tenant.id.rawValue)
                try statement.step()
            }
            try Self.insertHosts(of: tenant, into: database)
            try database.execute(Self.nextRevision)
            try insert(events, into: database)
            return true
        }
    }

    public func deleteTenant(id: TenantID, recording events: [SecurityEvent]) async throws -> Bool {
        try await withTransaction { database in
            guard try Self.tenant(id, in: database) != nil else { return false }
            try Self.deleteRows(of: id, in: database)
            try database.withStatement(Self.deleteTenant) { statement in
                try statement.bind(id.rawValue)
                try statement.step()
            }
            try database.execute(Self.nextRevision)
            try insert(events, into: database)
            return true
        }
    }

    // MARK: Helpers

    /// Every row `id` keeps, in every table.
    private static func deleteRows(of id: TenantID, in database: SQLiteConnection) throws {
        for table in tenantTables {
            try database.withStatement("DELETE FROM \(table) WHERE tenant = ? \(PlannerNote.tenantRemoval)") { statement in
                try statement.bind(id.rawValue)
                try statement.step()
            }
        }
    }

    private static func revision(in database: SQLiteConnection) throws -> Int64 {
        try database.withStatement(revision) { row in
            guard try row.step() else { throw StoreError(.database, "the tenant directory has no revision row") }
            return row.int64(0)
        }
    }

    private static func tenant(_ id: TenantID, in database: SQLiteConnection) throws -> TenantRecord? {
        let hosts = try database.withStatement(hostsOfTenant) { row in
            try row.bind(id.rawValue)
            var hosts: [String] = []
            while try row.step() { hosts.append(row.text(0)) }
            return hosts
        }
        return try database.withStatement(tenantByID) { row in
            try row.bind(id.rawValue)
            guard try row.step() else { return nil }
            return tenant(row, hosts: { _ in hosts })
        }
    }

    /// A stored tenant; nil for an ID no version of Latchkey would have written.
    private static func tenant(_ row: SQLiteStatement, hosts: (String) -> [String]) -> TenantRecord? {
        let id = row.text(0)
        guard let tenantID = TenantID(id) else { return nil }
        return TenantRecord(id: tenantID, hosts: hosts(id), settings: row.blob(1), createdAt: row.date(2), updatedAt: row.date(3))
    }

    private static func insertHosts(of tenant: TenantRecord, into database: SQLiteConnection) throws {
        for host in tenant.hosts {
            try database.withStatement(insertHost) { statement in
                try statement.bind(host, tenant.id.rawValue)
                do {
                    try statement.step()
                } catch is SQLiteConstraintError {
                    throw StoreError(.nameTaken, "the host \(host) is another tenant's")
                }
            }
        }
    }
}
