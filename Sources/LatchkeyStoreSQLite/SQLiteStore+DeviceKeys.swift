import Foundation
import LatchkeyStore

/// Device keys: enrolled app keys that sign in with a signature over a challenge.
extension SQLiteStore {
    private static let columns = "id, user_handle, public_key, name, created_at, last_used_at, app_attest_key_id"
    private static let insert = "INSERT INTO device_keys (\(columns), tenant) VALUES (?, ?, ?, ?, ?, ?, ?, current_tenant())"
    private static let byID = "SELECT \(columns) FROM device_keys WHERE id = ? AND tenant = current_tenant()"
    private static let byUser = "SELECT \(columns) FROM device_keys WHERE user_handle = ? AND tenant = current_tenant() ORDER BY created_at, rowid"
    private static let rename = "UPDATE device_keys SET name = ? WHERE id = ? AND user_handle = ? AND tenant = current_tenant() RETURNING \(columns)"
    private static let delete = "DELETE FROM device_keys WHERE id = ? AND user_handle = ? AND tenant = current_tenant()"
    private static let deleteSessionsOfKey = "DELETE FROM sessions WHERE device_key_id = ? AND user_handle = ? AND tenant = current_tenant()"
    private static let markUsed = "UPDATE device_keys SET last_used_at = ? WHERE id = ? AND user_handle = ? AND tenant = current_tenant()"

    public func saveDeviceKey(_ key: DeviceKeyRecord, spendingTicket: (hash: [UInt8], at: Date)?, recording events: [SecurityEvent])
        async throws
    {
        try await withTransaction { database in
            if let ticket = spendingTicket {
                try Self.spend(ticket, of: key.userHandle, in: database)
            }
            try database.withStatement(Self.insert) { statement in
                try statement.bind(key.id, key.userHandle, key.publicKey, key.name, key.createdAt, key.lastUsedAt, key.appAttestKeyID)
                do {
                    try statement.step()
                } catch let error as SQLiteConstraintError where error.code == SQLiteConstraintError.foreignKey {
                    throw StoreError(.userNotFound, "the user this device key was for does not exist")
                } catch is SQLiteConstraintError {
                    throw StoreError(.credentialAlreadyRegistered, "this device key is enrolled already")
                }
            }
            try insert(events, into: database)
        }
    }

    public func deviceKey(id: [UInt8]) async throws -> DeviceKeyRecord? {
        try await withStatement(Self.byID) { row in
            try row.bind(id)
            return try row.step() ? Self.deviceKey(row) : nil
        }
    }

    public func deviceKeys(ofUser handle: [UInt8]) async throws -> [DeviceKeyRecord] {
        try await withStatement(Self.byUser) { row in
            try row.bind(handle)
            var keys: [DeviceKeyRecord] = []
            while try row.step() { keys.append(Self.deviceKey(row)) }
            return keys
        }
    }

    public func renameDeviceKey(id: [UInt8], ownedBy owner: [UInt8], name: String?, recording events: [SecurityEvent]) async throws
        -> DeviceKeyRecord?
    {
        try await firstRow(Self.rename, recording: events, bind: { try $0.bind(name, id, owner) }) { Self.deviceKey($0) }
    }

    public func deleteDeviceKey(id: [UInt8], ownedBy owner: [UInt8], recording events: [SecurityEvent]) async throws -> Bool {
        try await withTransaction { database in
            let deleted = try database.withStatement(Self.delete) { statement in
                try statement.bind(id, owner)
                try statement.step()
                return database.changes > 0
            }
            guard deleted else { return false }
            // The sessions it signed in end with it: a lost phone's key is removed to sign the phone out.
            try database.withStatement(Self.deleteSessionsOfKey) { statement in
                try statement.bind(id, owner)
                try statement.step()
            }
            try insert(events, into: database)
            return true
        }
    }

    public func recordDeviceKeySignIn(
        id: [UInt8], at: Date, session: SessionRecord, endingSessions: [[UInt8]], recording events: [SecurityEvent]
    ) async throws -> Bool {
        try await withTransaction { database in
            let marked = try database.withStatement(Self.markUsed) { statement in
                try statement.bind(at, id, session.userHandle)
                try statement.step()
                return database.changes
            }
            guard marked > 0 else { return false }
            try Self.insert(session, signedInWith: id, into: database)
            try Self.deleteSessions(endingSessions, from: database)
            try insert(events, into: database)
            return true
        }
    }

    private static func deviceKey(_ row: SQLiteStatement) -> DeviceKeyRecord {
        DeviceKeyRecord(
            id: row.blob(0), userHandle: row.blob(1), publicKey: row.blob(2), name: row.optionalText(3), createdAt: row.date(4),
            lastUsedAt: row.optionalDate(5), appAttestKeyID: row.optionalBlob(6))
    }
}
