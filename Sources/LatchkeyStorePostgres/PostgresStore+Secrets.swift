import Foundation
import LatchkeyStore
import PostgresNIO
import WebAuthn

/// Secrets the server derives values from, made once and shared by every instance on the database.
extension PostgresStore {
    /// Two statements, each with its own snapshot: of two instances inserting at once, the second
    /// waits for the first, does nothing, and its SELECT then sees the first one's value.
    public func secret(named name: String) async throws -> [UInt8] {
        let candidate = try SecureRandom.bytes(count: 32)
        let tenant = tenant
        return try await withConnection { connection in
            try await Self.execute("""
                INSERT INTO secrets (name, value, tenant) VALUES (\(name), \(candidate.bytea), \(tenant))
                ON CONFLICT (name, tenant) DO NOTHING
                """, on: connection)
            let values = try await Self.rows(
                "SELECT value FROM secrets WHERE name = \(name) AND tenant = \(tenant)", on: connection) { try $0.bytes() }
            guard let value = values.first else { throw StoreError(.database, "the secret \"\(name)\" vanished") }
            return value
        }
    }
}
