import Foundation
import LatchkeyStore
import WebAuthn

/// Secrets the server derives values from, made once and shared by every process on the file.
extension SQLiteStore {
    /// The first writer's value wins; later ones read it.
    private static let insertSecret = "INSERT INTO secrets (name, value, tenant) VALUES (?, ?, current_tenant()) ON CONFLICT (name, tenant) DO NOTHING"
    private static let selectSecret = "SELECT value FROM secrets WHERE name = ? AND tenant = current_tenant()"

    public func secret(named name: String) async throws -> [UInt8] {
        // Drawn before the lock: only the write needs it.
        let candidate = try SecureRandom.bytes(count: 32)
        return try await withTransaction { database in
            try database.withStatement(Self.insertSecret) { statement in
                try statement.bind(name, candidate)
                try statement.step()
            }
            return try database.withStatement(Self.selectSecret) { row in
                try row.bind(name)
                guard try row.step() else { throw StoreError(.database, "the secret \"\(name)\" vanished") }
                return row.blob(0)
            }
        }
    }
}
