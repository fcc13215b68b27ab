import Foundation
import LatchkeyStore
import PostgresNIO

/// The groups users are in.
extension PostgresStore {
    public func groups(ofUser handle: [UInt8]) async throws -> [String] {
        try await rows("SELECT name FROM user_groups WHERE tenant = \(tenant) AND user_handle = \(handle.bytea) ORDER BY name") { try $0.utf8() }
    }

    public func setGroups(_ groups: [String], ofUser handle: [UInt8], recording events: [SecurityEvent]) async throws -> Bool {
        let outbox = webhooks, tenant = tenant
        return try await transaction { connection in
            // The user's row held against a deletion until the groups are written.
            let found = try await Self.rows(
                "SELECT 1 FROM users WHERE handle = \(handle.bytea) AND tenant = \(tenant) FOR SHARE", on: connection) { _ in true }
            guard !found.isEmpty else { return false }
            try await Self.execute("DELETE FROM user_groups WHERE tenant = \(tenant) AND user_handle = \(handle.bytea)", on: connection)
            for name in Set(groups) {
                try await Self.execute(
                    "INSERT INTO user_groups (tenant, user_handle, name) VALUES (\(tenant), \(handle.bytea), \(name.utf8Bytea))", on: connection)
            }
            try await Self.insert(events, of: tenant, outbox: outbox, on: connection)
            return true
        }
    }
}
