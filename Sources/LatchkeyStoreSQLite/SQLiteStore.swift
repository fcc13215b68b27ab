import Foundation

/// The embedded default store: one SQLite file in WAL mode, migrated on open. The actor serialises
/// every statement on its single connection, on its own thread (see ``SQLiteExecutor``); SQLite's
/// own locking guards other processes.
public actor SQLiteStore: LatchkeyStore {
    private let connection: SQLiteConnection
    private let executor = SQLiteExecutor(label: "latchkey.sqlite")

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Opens or creates the database at `path`, creating its folder, and migrates the schema.
    public init(path: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        connection = try SQLiteConnection(path: path)
        try SQLiteSchema.migrate(connection)
    }

    // MARK: Users and credentials

    public func user(named username: String) throws -> UserRecord? {
        let statement = try connection.prepare("SELECT handle, username, display_name, created_at FROM users WHERE username = ?")
        try statement.bind(.text(username))
        return try statement.step() ? Self.user(from: statement) : nil
    }

    public func user(handle: [UInt8]) throws -> UserRecord? {
        let statement = try connection.prepare("SELECT handle, username, display_name, created_at FROM users WHERE handle = ?")
        try statement.bind(.blob(handle))
        return try statement.step() ? Self.user(from: statement) : nil
    }

    private static let credentialColumns = """
        id, user_handle, public_key, algorithm, sign_count, transports, aaguid, attestation_format,
        attestation_type, backup_eligible, backed_up, resident_key, user_verified, created_at, last_used_at,
        attestation_trusted, trust_path, cred_protect, sign_count_regressions
        """

    public func credentials(ofUser handle: [UInt8]) throws -> [CredentialRecord] {
        let statement = try connection.prepare("SELECT \(Self.credentialColumns) FROM credentials WHERE user_handle = ? ORDER BY created_at, id")
        try statement.bind(.blob(handle))
        var records: [CredentialRecord] = []
        while try statement.step() { records.append(Self.credential(from: statement)) }
        return records
    }

    public func credential(id: [UInt8]) throws -> CredentialRecord? {
        let statement = try connection.prepare("SELECT \(Self.credentialColumns) FROM credentials WHERE id = ?")
        try statement.bind(.blob(id))
        return try statement.step() ? Self.credential(from: statement) : nil
    }

    public func register(_ credential: CredentialRecord, newUser: UserRecord?) throws {
        try connection.transaction {
            if let newUser {
                let insertUser = try connection.prepare("INSERT INTO users (handle, username, display_name, created_at) VALUES (?, ?, ?, ?)")
                try insertUser.bind(.blob(newUser.handle), .text(newUser.username), .text(newUser.displayName), .date(newUser.createdAt))
                do {
                    try insertUser.step()
                } catch is SQLiteConstraintError {
                    throw StoreError(.usernameTaken, "username \"\(newUser.username)\" is already registered")
                }
            } else if try user(handle: credential.userHandle) == nil {
                throw StoreError(.userNotFound, "the user this passkey was being added to no longer exists")
            }
            if try self.credential(id: credential.id) != nil {
                throw StoreError(.credentialAlreadyRegistered, "this credential is already registered")
            }
            let insert = try connection.prepare("""
                INSERT INTO credentials (\(Self.credentialColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            try insert.bind(
                .blob(credential.id), .blob(credential.userHandle), .blob(credential.publicKey),
                .integer(credential.algorithm), .integer(Int64(credential.signCount)),
                .text(credential.transports.joined(separator: ",")), .blob(credential.aaguid),
                .text(credential.attestationFormat), .text(credential.attestationType),
                .bool(credential.backupEligible), .bool(credential.backedUp),
                credential.residentKey.map(SQLiteValue.bool), .bool(credential.userVerified),
                .date(credential.createdAt), credential.lastUsedAt.map(SQLiteValue.date),
                .bool(credential.attestationTrusted),
                .text(credential.trustPath.map { Data($0).base64EncodedString() }.joined(separator: ",")),
                credential.credentialProtectionPolicy.map { .integer(Int64($0)) },
                .integer(Int64(credential.signCountRegressions)))
            do {
                try insert.step()
            } catch is SQLiteConstraintError {
                throw StoreError(.credentialAlreadyRegistered, "this credential is already registered")
            }
        }
    }

    public func recordSignIn(credentialID: [UInt8], previousSignCount: UInt32, signCount: UInt32, backedUp: Bool, at date: Date) throws -> Bool {
        let statement = try connection.prepare(
            "UPDATE credentials SET sign_count = ?, backed_up = ?, last_used_at = ? WHERE id = ? AND sign_count = ?")
        try statement.bind(
            .integer(Int64(signCount)), .bool(backedUp), .date(date), .blob(credentialID), .integer(Int64(previousSignCount)))
        try statement.step()
        return connection.changes == 1
    }

    public func recordSignCountRegression(credentialID: [UInt8]) throws {
        let statement = try connection.prepare("UPDATE credentials SET sign_count_regressions = sign_count_regressions + 1 WHERE id = ?")
        try statement.bind(.blob(credentialID))
        try statement.step()
    }

    // MARK: Pending ceremonies

    public func savePendingCeremony(_ ceremony: PendingCeremony) throws {
        let statement = try connection.prepare("""
            INSERT INTO pending_ceremonies (challenge_hash, kind, user_handle, username, display_name, user_verification, binding_hash, expires_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        try statement.bind(
            .blob(ceremony.challengeHash), .text(ceremony.kind.rawValue), ceremony.userHandle.map(SQLiteValue.blob),
            ceremony.username.map(SQLiteValue.text), ceremony.displayName.map(SQLiteValue.text),
            .text(ceremony.userVerification), ceremony.bindingHash.map(SQLiteValue.blob), .date(ceremony.expiresAt))
        try statement.step()
    }

    public func takePendingCeremony(challengeHash: [UInt8]) throws -> PendingCeremony? {
        // DELETE ... RETURNING makes finding and consuming one step: of two racing answers, one wins.
        let statement = try connection.prepare("""
            DELETE FROM pending_ceremonies WHERE challenge_hash = ?
            RETURNING challenge_hash, kind, user_handle, username, display_name, user_verification, binding_hash, expires_at
            """)
        try statement.bind(.blob(challengeHash))
        guard try statement.step() else { return nil }
        guard let kind = CeremonyKind(rawValue: statement.text(1)) else {
            throw StoreError(.database, "pending ceremony has an unknown kind \"\(statement.text(1))\"")
        }
        let ceremony = PendingCeremony(
            challengeHash: statement.blob(0), kind: kind, userHandle: statement.optionalBlob(2),
            username: statement.optionalText(3), displayName: statement.optionalText(4),
            userVerification: statement.text(5), bindingHash: statement.optionalBlob(6), expiresAt: statement.date(7))
        while try statement.step() {}
        return ceremony
    }

    // MARK: Sessions

    public func createSession(_ session: SessionRecord) throws {
        let statement = try connection.prepare("INSERT INTO sessions (token_hash, user_handle, created_at, expires_at) VALUES (?, ?, ?, ?)")
        try statement.bind(.blob(session.tokenHash), .blob(session.userHandle), .date(session.createdAt), .date(session.expiresAt))
        try statement.step()
    }

    public func session(tokenHash: [UInt8], now: Date) throws -> SessionRecord? {
        let statement = try connection.prepare("SELECT token_hash, user_handle, created_at, expires_at FROM sessions WHERE token_hash = ? AND expires_at > ?")
        try statement.bind(.blob(tokenHash), .date(now))
        guard try statement.step() else { return nil }
        return SessionRecord(tokenHash: statement.blob(0), userHandle: statement.blob(1), createdAt: statement.date(2), expiresAt: statement.date(3))
    }

    public func deleteSession(tokenHash: [UInt8]) throws {
        let statement = try connection.prepare("DELETE FROM sessions WHERE token_hash = ?")
        try statement.bind(.blob(tokenHash))
        try statement.step()
    }

    public func purgeExpired(now: Date) throws {
        try connection.transaction {
            for table in ["pending_ceremonies", "sessions"] {
                let statement = try connection.prepare("DELETE FROM \(table) WHERE expires_at <= ?")
                try statement.bind(.date(now))
                try statement.step()
            }
        }
    }

    // MARK: Row mapping

    private static func user(from row: SQLiteStatement) -> UserRecord {
        UserRecord(handle: row.blob(0), username: row.text(1), displayName: row.text(2), createdAt: row.date(3))
    }

    private static func credential(from row: SQLiteStatement) -> CredentialRecord {
        let transports = row.text(5)
        return CredentialRecord(
            id: row.blob(0), userHandle: row.blob(1), publicKey: row.blob(2), algorithm: row.int64(3),
            signCount: UInt32(clamping: row.int64(4)),
            transports: transports.isEmpty ? [] : transports.split(separator: ",").map(String.init),
            aaguid: row.blob(6), attestationFormat: row.text(7), attestationType: row.text(8),
            attestationTrusted: row.int(15) != 0,
            trustPath: row.text(16).split(separator: ",").compactMap { Data(base64Encoded: String($0)).map(Array.init) },
            credentialProtectionPolicy: row.isNull(17) ? nil : UInt8(clamping: row.int(17)),
            signCountRegressions: row.int(18),
            backupEligible: row.int(9) != 0, backedUp: row.int(10) != 0,
            residentKey: row.isNull(11) ? nil : row.int(11) != 0, userVerified: row.int(12) != 0,
            createdAt: row.date(13), lastUsedAt: row.optionalDate(14))
    }
}
