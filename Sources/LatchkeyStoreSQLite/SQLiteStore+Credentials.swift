import Foundation
import LatchkeyStore

/// Users and credentials: reads, registration and sign-in bookkeeping.
extension SQLiteStore {
    private static let userByName = "SELECT \(SQLiteRows.userColumns("u.")) FROM users u WHERE u.username = ? AND u.tenant = current_tenant()"
    private static let userByHandle = "SELECT \(SQLiteRows.userColumns("u.")) FROM users u WHERE u.handle = ? AND u.tenant = current_tenant()"
    private static let credentialsByUser = """
        SELECT \(SQLiteRows.credentialColumns("c.")) FROM credentials c WHERE c.user_handle = ? AND c.tenant = current_tenant() ORDER BY c.created_at, c.rowid
        """
    private static let credentialByID = "SELECT \(SQLiteRows.credentialColumns("c.")) FROM credentials c WHERE c.id = ? AND c.tenant = current_tenant()"
    private static let insertUser = "INSERT INTO users (\(SQLiteRows.userColumns()), tenant) VALUES (?, ?, ?, ?, ?, ?, current_tenant())"
    /// Spends an enrollment ticket for the credential's owner, if it is still usable.
    private static let spendTicket = """
        UPDATE enrollment_tickets SET used_at = ?1
        WHERE hash = ?2 AND tenant = current_tenant() AND user_handle = ?3 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > ?1
        """
    private static let insertCredential = """
        INSERT INTO credentials (\(SQLiteRows.credentialColumns()), tenant)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, current_tenant())
        """
    /// The sign-in's challenge, consumed first: of two answers to one challenge, one deletes the row.
    private static let consumeCeremony = "DELETE FROM pending_ceremonies WHERE challenge_hash = ? AND tenant = current_tenant()"
    /// The compare-and-set of a sign-in: writes only if the counter is still the one read.
    private static let compareAndSetSignIn = """
        UPDATE credentials SET sign_count = ?, backed_up = ?, user_verified = ?, last_used_at = ?
        WHERE id = ? AND tenant = current_tenant() AND sign_count = ? RETURNING user_handle
        """
    private static let credentialExists = "SELECT 1 FROM credentials WHERE id = ? AND tenant = current_tenant()"
    /// The users ``passkeyShapes()`` counts over: the tenant's first ``PasskeyShapes/sampledUsers`` (`?1`) by username.
    private static let sampledUsers = "SELECT handle, tenant FROM users WHERE tenant = current_tenant() ORDER BY username LIMIT ?1"
    private static let countRegression =
        "UPDATE credentials SET sign_count_regressions = sign_count_regressions + 1 WHERE id = ? AND tenant = current_tenant()"

    public func user(named username: String) async throws -> UserRecord? {
        try await withDatabase { try Self.user(named: username, in: $0) }
    }

    public func user(handle: [UInt8]) async throws -> UserRecord? {
        try await withStatement(Self.userByHandle) { row in
            try row.bind(handle)
            return try row.step() ? SQLiteRows.user(row) : nil
        }
    }

    public func credentials(ofUser handle: [UInt8]) async throws -> [CredentialRecord] {
        try await withDatabase { try Self.credentials(ofUser: handle, in: $0) }
    }

    public func userWithCredentials(named username: String) async throws -> (user: UserRecord, credentials: [CredentialRecord])? {
        try await withDatabase { database in
            guard let user = try Self.user(named: username, in: database) else { return nil }
            return (user, try Self.credentials(ofUser: user.handle, in: database))
        }
    }

    private static func user(named username: String, in database: SQLiteConnection) throws -> UserRecord? {
        try database.withStatement(userByName) { row in
            try row.bind(username)
            return try row.step() ? SQLiteRows.user(row) : nil
        }
    }

    private static func credentials(ofUser handle: [UInt8], in database: SQLiteConnection) throws -> [CredentialRecord] {
        try database.withStatement(credentialsByUser) { row in
            try row.bind(handle)
            var records: [CredentialRecord] = []
            while try row.step() { records.append(try SQLiteRows.credential(row)) }
            return records
        }
    }

    public func credential(id: [UInt8]) async throws -> CredentialRecord? {
        try await withStatement(Self.credentialByID) { row in
            try row.bind(id)
            return try row.step() ? SQLiteRows.credential(row) : nil
        }
    }

    public func passkeyShapes() async throws -> PasskeyShapes {
        try await withDatabase { database in
            var shapes = PasskeyShapes()
            try database.withStatement("""
                SELECT length(c.id), c.transports, count(*) FROM (\(Self.sampledUsers)) u
                JOIN credentials c ON c.user_handle = u.handle AND c.tenant = u.tenant GROUP BY 1, 2
                """) { row in
                try row.bind(Int64(PasskeyShapes.sampledUsers))
                while try row.step() {
                    let shape = PasskeyShapes.Shape(idLength: Int(row.int64(0)), transports: row.withText(1, SQLiteRows.transports))
                    shapes.passkeys[shape, default: 0] += Int(row.int64(2))
                }
            }
            try database.withStatement("""
                SELECT n, count(*) FROM (
                    SELECT count(c.id) AS n FROM (\(Self.sampledUsers)) u
                    LEFT JOIN credentials c ON c.user_handle = u.handle AND c.tenant = u.tenant GROUP BY u.handle)
                WHERE n > 0 GROUP BY n
                """) { row in
                try row.bind(Int64(PasskeyShapes.sampledUsers))
                while try row.step() { shapes.usersByPasskeyCount[Int(row.int64(0))] = Int(row.int64(1)) }
            }
            return shapes
        }
    }

    public func register(_ registration: NewRegistration) async throws {
        let credential = registration.credential
        if let newUser = registration.newUser, newUser.handle != credential.userHandle {
            throw StoreError(.userNotFound, "the new user is not the owner of the credential being registered")
        }
        if let session = registration.session, session.userHandle != credential.userHandle {
            throw StoreError(.userNotFound, "the session is for another user than the credential's owner")
        }
        try await withTransaction { database in
            if let challengeHash = registration.challengeHash, try !Self.consume(challengeHash, in: database) {
                throw StoreError(.challengeSpent, "the challenge was answered already")
            }
            if let ticket = registration.spendingTicket {
                try Self.spend(ticket, of: credential.userHandle, in: database)
            }
            if let newUser = registration.newUser {
                try Self.insert(newUser, into: database)
                if let contact = registration.contact { try Self.insert(contact, of: newUser.handle, into: database) }
            }
            try Self.insert(credential, into: database)
            if let session = registration.session {
                try Self.insert(session, into: database)
            }
            try Self.deleteSessions(registration.endingSessions, from: database)
            try insert(registration.events, into: database)
        }
    }

    public func recordSignIn(_ signIn: CompletedSignIn) async throws -> SignInRecording {
        try await withTransaction { database in
            guard try Self.consume(signIn.challengeHash, in: database) else { return .challengeSpent }
            let owner = try database.withStatement(Self.compareAndSetSignIn) { row in
                try row.bind(
                    Int64(signIn.signCount), signIn.backedUp, signIn.userVerified, signIn.at, signIn.credentialID,
                    Int64(signIn.previousSignCount))
                guard try row.step() else { return nil as [UInt8]? }
                let owner = row.blob(0)
                try row.finish()
                return owner
            }
            guard let owner else {
                let exists = try database.withStatement(Self.credentialExists) { row in
                    try row.bind(signIn.credentialID)
                    return try row.step()
                }
                return exists ? .counterMoved : .credentialRemoved
            }
            guard owner == signIn.session.userHandle else {
                throw StoreError(.userNotFound, "the session is for another user than the credential's owner")
            }
            try Self.insert(signIn.session, into: database)
            try Self.deleteSessions(signIn.endingSessions, from: database)
            try insert(signIn.events, into: database)
            return .recorded
        }
    }

    public func recordSignCountRegression(credentialID: [UInt8], recording events: [SecurityEvent]) async throws {
        try await withTransaction { database in
            let marked = try database.withStatement(Self.countRegression) { statement in
                try statement.bind(credentialID)
                try statement.step()
                return database.changes
            }
            if marked > 0 { try insert(events, into: database) }
        }
    }

    // MARK: Writes inside a transaction

    /// Deletes the pending ceremony of `challengeHash`; false when there was none (another answer took it).
    static func consume(_ challengeHash: [UInt8], in database: SQLiteConnection) throws -> Bool {
        try database.withStatement(consumeCeremony) { statement in
            try statement.bind(challengeHash)
            try statement.step()
            return database.changes == 1
        }
    }

    /// Marks an enrollment ticket of `userHandle` used; ``StoreError/Code/ticketNotUsable`` when it
    /// is another user's, used, revoked, expired or gone.
    static func spend(_ ticket: (hash: [UInt8], at: Date), of userHandle: [UInt8], in database: SQLiteConnection) throws {
        let spent = try database.withStatement(spendTicket) { statement in
            try statement.bind(ticket.at, ticket.hash, userHandle)
            try statement.step()
            return database.changes
        }
        guard spent == 1 else { throw StoreError(.ticketNotUsable, "the enrollment ticket is no longer usable for this user") }
    }

    static func insert(_ user: UserRecord, into database: SQLiteConnection) throws {
        try database.withStatement(insertUser) { statement in
            try statement.bind(user.handle, user.username, user.displayName, user.createdAt, user.externalId, user.disabled)
            do {
                try refusingTakenNames(of: user) { try statement.step() }
            } catch let error as SQLiteConstraintError
                where error.code == SQLiteConstraintError.primaryKey || error.message.contains("users.handle")
            {
                throw StoreError(.database, "a user with this handle exists already")
            }
        }
    }

    /// Runs `body`, which writes `user`; a unique constraint on its external ID or username becomes the store's error.
    @discardableResult
    static func refusingTakenNames<T>(of user: UserRecord, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteConstraintError where error.message.contains("external_id") {
            throw StoreError(.externalIdTaken, "externalId \"\(user.externalId ?? "")\" belongs to another user")
        } catch let error as SQLiteConstraintError where error.message.contains("username") {
            throw StoreError(.usernameTaken, "username \"\(user.username)\" is already registered")
        }
    }

    static func insert(_ credential: CredentialRecord, into database: SQLiteConnection) throws {
        try database.withStatement(insertCredential) { statement in
            try statement.bind(
                credential.id, credential.userHandle, credential.publicKey, credential.algorithm.rawValue,
                Int64(credential.signCount), SQLiteRows.transportList(credential.transports), credential.aaguid,
                credential.attestationFormat.rawValue, credential.attestationType.rawValue, credential.backupEligible,
                credential.backedUp, credential.residentKey, credential.userVerified, credential.createdAt,
                credential.lastUsedAt, credential.attestationTrusted, SQLiteRows.trustPathList(credential.trustPath),
                credential.credentialProtectionPolicy.map(Int64.init), Int64(credential.signCountRegressions),
                credential.name)
            do {
                try statement.step()
            } catch let error as SQLiteConstraintError where error.code == SQLiteConstraintError.foreignKey {
                throw StoreError(.userNotFound, "the user this passkey was being added to does not exist")
            } catch is SQLiteConstraintError {
                throw StoreError(.credentialAlreadyRegistered, "this credential is already registered")
            }
        }
    }
}
