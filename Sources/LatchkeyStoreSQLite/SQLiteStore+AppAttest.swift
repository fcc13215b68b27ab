import Foundation
import LatchkeyStore

/// App Attest keys: attested once, then used for assertions, each counter accepted once.
extension SQLiteStore {
    private static let appAttestColumns = "key_id, public_key, app_id, environment, receipt, counter, accepted_counters, created_at, last_used_at"
    private static let insertAppAttestKey = "INSERT INTO app_attest_keys (\(appAttestColumns), tenant) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, current_tenant())"
    private static let appAttestKeyByID = "SELECT \(appAttestColumns) FROM app_attest_keys WHERE key_id = ? AND tenant = current_tenant()"
    /// The counters' compare-and-set: one statement, so two racing assertions that read the same counters cannot both move them.
    private static let updateCounters = """
        UPDATE app_attest_keys SET counter = ?1, accepted_counters = ?2, last_used_at = ?3
        WHERE key_id = ?4 AND tenant = current_tenant() AND counter = ?5 AND accepted_counters = ?6
        """

    public func saveAppAttestKey(_ key: AppAttestKeyRecord) async throws {
        try await withStatement(Self.insertAppAttestKey) { statement in
            try statement.bind(
                key.keyID, key.publicKey, key.appID, key.environment, key.receipt, Int64(key.counter), Int64(bitPattern: key.acceptedCounters),
                key.createdAt, key.lastUsedAt)
            do {
                try statement.step()
            } catch is SQLiteConstraintError {
                throw StoreError(.credentialAlreadyRegistered, "this App Attest key is attested already")
            }
        }
    }

    public func appAttestKey(id: [UInt8]) async throws -> AppAttestKeyRecord? {
        try await withStatement(Self.appAttestKeyByID) { row in
            try row.bind(id)
            guard try row.step() else { return nil }
            return AppAttestKeyRecord(
                keyID: row.blob(0), publicKey: row.blob(1), appID: row.text(2), environment: row.text(3), receipt: row.blob(4),
                counter: UInt32(clamping: row.int64(5)), acceptedCounters: UInt64(bitPattern: row.int64(6)), createdAt: row.date(7),
                lastUsedAt: row.optionalDate(8))
        }
    }

    public func updateAppAttestCounters(
        id: [UInt8], from old: (counter: UInt32, accepted: UInt64), to new: (counter: UInt32, accepted: UInt64), at: Date
    ) async throws -> Bool {
        try await withDatabase { database in
            try database.withStatement(Self.updateCounters) { statement in
                try statement.bind(
                    Int64(new.counter), Int64(bitPattern: new.accepted), at, id, Int64(old.counter), Int64(bitPattern: old.accepted))
                try statement.step()
                return database.changes > 0
            }
        }
    }
}
