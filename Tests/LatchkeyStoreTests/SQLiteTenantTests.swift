import Foundation
import LatchkeyStore
import Testing
import WebAuthn

@testable import LatchkeyStoreSQLite

/// What only the SQLite store does for tenants: its migration and its `current_tenant()`. Isolation
/// itself is in ``StoreContractTests``, run against both backends.
@Suite("SQLite store, tenants")
struct SQLiteTenantTests {
    let path = TemporaryDatabase.newPath()
    let other = TenantID("tenant-b")!

    /// A store written before tenants opens with every row in the default tenant.
    @Test func rowsFromBeforeTenantsAreTheDefaultTenants() async throws {
        try FileManager.default.createDirectory(at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
        let beforeTenants = 11  // the migrations of 0.8.0
        do {
            let old = try SQLiteConnection(path: path)
            for migration in SQLiteSchema.migrations.prefix(beforeTenants) { try old.execute(migration) }
            try old.execute("PRAGMA user_version = \(beforeTenants)")
            try old.execute("""
                INSERT INTO users (handle, username, display_name, created_at) VALUES (x'01', 'dora', 'Dora', 0);
                INSERT INTO credentials (id, user_handle, public_key, algorithm, sign_count, transports, aaguid,
                    attestation_format, attestation_type, backup_eligible, backed_up, resident_key, user_verified, created_at)
                VALUES (x'0707', x'01', x'A501', -7, 3, 'internal', zeroblob(16), 'none', 'none', 1, 1, 1, 1, 0);
                INSERT INTO sessions (token_hash, user_handle, created_at, expires_at) VALUES (x'02', x'01', 0, 1e12);
                INSERT INTO admin_keys (name, key_hash, created_at) VALUES ('backend', x'08', 0);
                INSERT INTO signing_keys (generation, key_id, private_key, created_at, signs_from) VALUES (1, 'kid', x'01', 0, 0);
                """)
        }
        let store = try SQLiteStore(path: path)
        #expect(try await store.user(named: "dora")?.handle == [1])
        #expect(try await store.credential(id: [7, 7])?.signCount == 3)
        #expect(try await store.session(tokenHash: [2], now: Fixtures.now)?.user.username == "dora")
        #expect(try await store.useAdminKey(hash: [8], now: Fixtures.now)?.name == "backend")
        #expect(try await store.signingKeys().map(\.keyID) == ["kid"])
        #expect(try await store.scoped(to: other).user(named: "dora") == nil)
        // Foreign keys still hold after the rebuild: removing the user removes the passkey.
        #expect(try await store.deleteUser(handle: [1]) == [[7, 7]])
        #expect(try await store.credential(id: [7, 7]) == nil)
    }

    /// `current_tenant()` is an index key like a bound value: a sign-in's reads stay single look-ups.
    @Test func tenantComparisonsUseTheIndexes() throws {
        _ = try SQLiteStore(path: path)
        let connection = try SQLiteConnection(path: path)
        func plan(_ sql: String) throws -> String {
            try connection.withStatement("EXPLAIN QUERY PLAN " + sql) { row in
                var steps: [String] = []
                while try row.step() { steps.append(row.text(3)) }
                return steps.joined(separator: "; ")
            }
        }
        let byName = try plan("SELECT handle FROM users WHERE username = 'a' AND tenant = current_tenant()")
        #expect(byName.hasPrefix("SEARCH users USING") && byName.contains("(tenant=? AND username=?)"), "\(byName)")
        let byID = try plan("SELECT public_key FROM credentials WHERE id = x'01' AND tenant = current_tenant()")
        #expect(byID.hasPrefix("SEARCH credentials USING") && byID.contains("(id=? AND tenant=?)"), "\(byID)")
    }
}
