import Foundation
import LatchkeyStore
import PostgresNIO

/// Device keys: enrolled app keys that sign in with a signature over a challenge.
extension PostgresStore {
    private static let deviceKeyColumns = "id, user_handle, public_key, name, created_at, last_used_at, app_attest_key_id"

    public func saveDeviceKey(_ key: DeviceKeyRecord, spendingTicket: (hash: [UInt8], at: Date)?, recording events: [SecurityEvent])
        async throws
    {
        let outbox = webhooks, tenant = tenant
        try await transaction { connection in
            if let ticket = spendingTicket {
                try await Self.spend(ticket, of: key.userHandle, tenant: tenant, on: connection)
            }
            try await Self.execute("""
                INSERT INTO device_keys (\(unescaped: Self.deviceKeyColumns), tenant) VALUES (
                    \(key.id.bytea), \(key.userHandle.bytea), \(key.publicKey.bytea), \(key.name?.utf8Bytea), \(key.createdAt),
                    \(key.lastUsedAt), \(key.appAttestKeyID?.bytea), \(tenant)
                )
                """, on: connection)
            try await Self.insert(events, of: tenant, outbox: outbox, on: connection)
        }
    }

    public func deviceKey(id: [UInt8]) async throws -> DeviceKeyRecord? {
        try await firstRow("""
            SELECT \(unescaped: Self.deviceKeyColumns) FROM device_keys WHERE id = \(id.bytea) AND tenant = \(tenant)
            """) { try Self.deviceKey(&$0) }
    }

    public func deviceKeys(ofUser handle: [UInt8]) async throws -> [DeviceKeyRecord] {
        try await rows("""
            SELECT \(unescaped: Self.deviceKeyColumns) FROM device_keys WHERE user_handle = \(handle.bytea) AND tenant = \(tenant)
            ORDER BY created_at, registered
            """) { try Self.deviceKey(&$0) }
    }

    public func renameDeviceKey(id: [UInt8], ownedBy owner: [UInt8], name: String?, recording events: [SecurityEvent]) async throws
        -> DeviceKeyRecord?
    {
        try await firstRow("""
            UPDATE device_keys SET name = \(name?.utf8Bytea) WHERE id = \(id.bytea) AND tenant = \(tenant) AND user_handle = \(owner.bytea)
            RETURNING \(unescaped: Self.deviceKeyColumns)
            """, recording: events) { try Self.deviceKey(&$0) }
    }

    public func deleteDeviceKey(id: [UInt8], ownedBy owner: [UInt8], recording events: [SecurityEvent]) async throws -> Bool {
        let outbox = webhooks, tenant = tenant
        return try await transaction { connection in
            let deleted = try await Self.rows("""
                DELETE FROM device_keys WHERE id = \(id.bytea) AND tenant = \(tenant) AND user_handle = \(owner.bytea) RETURNING 1
                """, on: connection) { _ in true }
            guard !deleted.isEmpty else { return false }
            // The sessions it signed in end with it: a lost phone's key is removed to sign the phone out.
            try await Self.execute("""
                DELETE FROM sessions WHERE device_key_id = \(id.bytea) AND tenant = \(tenant) AND user_handle = \(owner.bytea)
                """, on: connection)
            try await Self.insert(events, of: tenant, outbox: outbox, on: connection)
            return true
        }
    }

    public func recordDeviceKeySignIn(
        id: [UInt8], at: Date, session: SessionRecord, endingSessions: [[UInt8]], recording events: [SecurityEvent]
    ) async throws -> Bool {
        let outbox = webhooks, tenant = tenant
        return try await transaction { connection in
            let marked = try await Self.rows("""
                UPDATE device_keys SET last_used_at = \(at)
                WHERE id = \(id.bytea) AND tenant = \(tenant) AND user_handle = \(session.userHandle.bytea) RETURNING 1
                """, on: connection) { _ in true }
            guard !marked.isEmpty else { return false }
            try await Self.insert(session, of: tenant, signedInWith: id, on: connection)
            try await Self.deleteSessions(endingSessions, of: tenant, on: connection)
            try await Self.insert(events, of: tenant, outbox: outbox, on: connection)
            return true
        }
    }

    private static func deviceKey(_ row: inout ColumnReader) throws -> DeviceKeyRecord {
        DeviceKeyRecord(
            id: try row.bytes(), userHandle: try row.bytes(), publicKey: try row.bytes(), name: try row.optionalUTF8(),
            createdAt: try row.next(Date.self), lastUsedAt: try row.next(Date?.self), appAttestKeyID: try row.optionalBytes())
    }
}
