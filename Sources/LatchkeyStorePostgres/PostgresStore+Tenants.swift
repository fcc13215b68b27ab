import Foundation
import LatchkeyStore
import LatchkeyStoreSQL
import PostgresNIO

/// The tenants an operator made, across the store: these statements name the tenant they are about, never the
/// store's own, except for the events, which are the calling store's tenant's. Every change moves the directory's
/// revision on in its transaction, holding that row's lock to its end, so changes from several instances are serial.
extension PostgresStore {
    public func tenantDirectory() async throws -> TenantDirectoryRecord {
        try await withConnection { connection in
            // One snapshot for the three reads.
            try await Self.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", on: connection)
            do {
                let revision = try await Self.revision(on: connection)
                var hosts: [String: [String]] = [:]
                for (host, tenant) in try await Self.rows("SELECT host, tenant FROM tenant_hosts ORDER BY host", on: connection, {
                    (try $0.next(String.self), try $0.next(String.self))
                }) {
                    hosts[tenant, default: []].append(host)
                }
                let tenants = try await Self.rows("SELECT id, settings, created_at, updated_at FROM tenants ORDER BY id", on: connection) {
                    try Self.tenant(&$0, hosts: { hosts[$0] ?? [] })
                }.compactMap { $0 }
                try await Self.execute("COMMIT", on: connection)
                return TenantDirectoryRecord(revision: revision, tenants: tenants)
            } catch {
                try? await Self.execute("ROLLBACK", on: connection)
                throw error
            }
        }
    }

    public func tenantRevision() async throws -> Int64 {
        try await withConnection { try await Self.revision(on: $0) }
    }

    public func tenant(id: TenantID) async throws -> TenantRecord? {
        try await withConnection { try await Self.tenant(id, on: $0) }
    }

    public func createTenant(_ tenant: TenantRecord, recording events: [SecurityEvent]) async throws {
        let outbox = webhooks, caller = self.tenant
        try await transaction { connection in
            try await Self.nextRevision(on: connection)
            guard try await Self.tenant(tenant.id, on: connection) == nil else {
                throw StoreError(.nameTaken, "a tenant \"\(tenant.id)\" exists already")
            }
            // Rows a removed tenant of this ID left behind (written by a request still in flight as it was removed, or
            // by an instance that had not seen the removal yet) are not the new tenant's.
            try await Self.deleteRows(of: tenant.id, on: connection)
            try await Self.execute("""
                INSERT INTO tenants (id, settings, created_at, updated_at)
                VALUES (\(tenant.id), \(tenant.settings.bytea), \(tenant.createdAt), \(tenant.updatedAt))
                """, on: connection)
            try await Self.insertHosts(of: tenant, on: connection)
            try await Self.insert(events, of: caller, outbox: outbox, on: connection)
        }
    }

    public func updateTenant(_ tenant: TenantRecord, from previous: TenantRecord, recording events: [SecurityEvent]) async throws -> Bool {
        let outbox = webhooks, caller = self.tenant
        return try await transaction { connection in
            guard tenant.id == previous.id, try await Self.tenant(previous.id, locking: true, on: connection) == previous else { return false }
            try await Self.nextRevision(on: connection)
            try await Self.execute("""
                UPDATE tenants SET settings = \(tenant.settings.bytea), updated_at = \(tenant.updatedAt) WHERE id = \(tenant.id)
                """, on: connection)
            try await Self.execute("DELETE FROM tenant_hosts WHERE tenant = \(tenant.id)", on: connection)
            try await Self.insertHosts(of: tenant, on: connection)
            try await Self.insert(events, of: caller, outbox: outbox, on: connection)
            return true
        }
    }

    public func deleteTenant(id: TenantID, recording events: [SecurityEvent]) async throws -> Bool {
        let outbox = webhooks, caller = tenant
        return try await transaction { connection in
            guard try await Self.tenant(id, locking: true, on: connection) != nil else { return false }
            try await Self.nextRevision(on: connection)
            try await Self.deleteRows(of: id, on: connection)
            try await Self.execute("DELETE FROM tenants WHERE id = \(id)", on: connection)
            try await Self.insert(events, of: caller, outbox: outbox, on: connection)
            return true
        }
    }

    // MARK: Helpers

    /// Every row `id` keeps, in every table.
    private static func deleteRows(of id: TenantID, on connection: PostgresConnection) async throws {
        for table in tenantTables {
            var binds = PostgresBindings()
            binds.append(id)
            try await execute(PostgresQuery(unsafeSQL: "DELETE FROM \(table) WHERE tenant = $1 \(PlannerNote.tenantRemoval)", binds: binds), on: connection)
        }
    }

    /// Moves the revision on, taking its row's lock until the transaction ends: one change of tenants at a time.
    private static func nextRevision(on connection: PostgresConnection) async throws {
        try await execute("UPDATE tenant_directory SET revision = revision + 1 WHERE id = 1", on: connection)
    }

    private static func revision(on connection: PostgresConnection) async throws -> Int64 {
        guard let revision = try await rows("SELECT revision FROM tenant_directory WHERE id = 1", on: connection, { try $0.next(Int64.self) }).first
        else { throw StoreError(.database, "the tenant directory has no revision row") }
        return revision
    }

    /// The tenant, its row locked until the transaction ends when `locking` (a change takes the tenant's row, then
    /// the directory's, always in that order).
    private static func tenant(_ id: TenantID, locking: Bool = false, on connection: PostgresConnection) async throws -> TenantRecord? {
        let lock = locking ? " FOR UPDATE" : ""
        let rows = try await rows("SELECT id, settings, created_at, updated_at FROM tenants WHERE id = \(id)\(unescaped: lock)", on: connection) {
            try Self.tenant(&$0, hosts: { _ in [] })
        }
        guard var tenant = rows.first ?? nil else { return nil }
        tenant.hosts = try await self.rows("SELECT host FROM tenant_hosts WHERE tenant = \(id) ORDER BY host", on: connection) { try $0.next(String.self) }
        return tenant
    }

    /// A stored tenant; nil for an ID no version of Latchkey would have written.
    private static func tenant(_ row: inout ColumnReader, hosts: (String) -> [String]) throws -> TenantRecord? {
        let id = try row.next(String.self)
        let settings = try row.bytes()
        let createdAt = try row.next(Date.self), updatedAt = try row.next(Date.self)
        guard let tenantID = TenantID(id) else { return nil }
        return TenantRecord(id: tenantID, hosts: hosts(id), settings: settings, createdAt: createdAt, updatedAt: updatedAt)
    }

    private static func insertHosts(of tenant: TenantRecord, on connection: PostgresConnection) async throws {
        for host in tenant.hosts {
            try await execute("INSERT INTO tenant_hosts (host, tenant) VALUES (\(host), \(tenant.id))", on: connection)
        }
    }
}
