import Foundation
import LatchkeyStore

/// App Attest keys: attested once, then used for assertions whose counter only moves up.
extension SQLiteStore {
    private static let appAttestColumns = "key_id, public_key, app_id, environment, receipt, counter, created_at, last_used_at"
    private static let insertAppAttestKey = "INSERT INTO app_attest_keys (\(appAttestColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    private static let appAttestKeyByID = "SELECT \(appAttestColumns) FROM app_attest_keys WHERE key_id = ?"
    /// The counter's compare-and-set: one statement, so two racing assertions cannot both move it.
    private static let advanceCounter = "UPDATE app_attest_keys SET counter = ?1, last_used_at = ?2 WHERE key_id = ?3 AND counter < ?1"

    public func saveAppAttestKey(_ key: AppAttestKeyRecord) throws {
        try withStatement(Self.insertAppAttestKey) { statement in
            try statement.bind(
                key.keyID, key.publicKey, key.appID, key.environment, key.receipt, Int64(key.counter), key.createdAt, key.lastUsedAt)
            do {
                try statement.step()
            } catch is SQLiteConstraintError {
                throw StoreError(.credentialAlreadyRegistered, "this App Attest key is attested already")
            }
        }
    }

    public func appAttestKey(id: [UInt8]) throws -> AppAttestKeyRecord? {
        try withStatement(Self.appAttestKeyByID) { row in
            try row.bind(id)
            guard try row.step() else { return nil }
            return AppAttestKeyRecord(
                keyID: row.blob(0), publicKey: row.blob(1), appID: row.text(2), environment: row.text(3), receipt: row.blob(4),
                counter: UInt32(clamping: row.int64(5)), createdAt: row.date(6), lastUsedAt: row.optionalDate(7))
        }
    }

    public func advanceAppAttestCounter(id: [UInt8], to counter: UInt32, at: Date) throws -> Bool {
        try withDatabase { database in
            try database.withStatement(Self.advanceCounter) { statement in
                try statement.bind(Int64(counter), at, id)
                try statement.step()
                return database.changes > 0
            }
        }
    }
}
