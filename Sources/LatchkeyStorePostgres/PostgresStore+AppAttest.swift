import Foundation
import LatchkeyStore
import PostgresNIO

/// App Attest keys: attested once, then used for assertions, each counter accepted once.
extension PostgresStore {
    private static let appAttestColumns = "key_id, public_key, app_id, environment, receipt, counter, accepted_counters, created_at, last_used_at"

    public func saveAppAttestKey(_ key: AppAttestKeyRecord) async throws {
        try await execute("""
            INSERT INTO app_attest_keys (\(unescaped: Self.appAttestColumns), tenant) VALUES (
                \(key.keyID.bytea), \(key.publicKey.bytea), \(key.appID), \(key.environment), \(key.receipt.bytea),
                \(Int64(key.counter)), \(Int64(bitPattern: key.acceptedCounters)), \(key.createdAt), \(key.lastUsedAt),
                \(tenant)
            )
            """)
    }

    public func appAttestKey(id: [UInt8]) async throws -> AppAttestKeyRecord? {
        try await firstRow("""
            SELECT \(unescaped: Self.appAttestColumns) FROM app_attest_keys
            WHERE key_id = \(id.bytea) AND tenant = \(tenant)
            """) { row in
            AppAttestKeyRecord(
                keyID: try row.bytes(), publicKey: try row.bytes(), appID: try row.next(String.self), environment: try row.next(String.self),
                receipt: try row.bytes(), counter: UInt32(clamping: try row.next(Int64.self)),
                acceptedCounters: UInt64(bitPattern: try row.next(Int64.self)), createdAt: try row.next(Date.self),
                lastUsedAt: try row.next(Date?.self))
        }
    }

    /// One statement, so that of two racing assertions that read the same counters one wins.
    public func updateAppAttestCounters(
        id: [UInt8], from old: (counter: UInt32, accepted: UInt64), to new: (counter: UInt32, accepted: UInt64), at: Date
    ) async throws -> Bool {
        try await !rows("""
            UPDATE app_attest_keys SET counter = \(Int64(new.counter)), accepted_counters = \(Int64(bitPattern: new.accepted)),
                last_used_at = \(at)
            WHERE key_id = \(id.bytea) AND tenant = \(tenant) AND counter = \(Int64(old.counter)) AND accepted_counters = \(Int64(bitPattern: old.accepted))
            RETURNING 1
            """) { _ in true }.isEmpty
    }
}
