import Foundation
import LatchkeyStore
import LatchkeyStoreSQL

/// Pending ceremonies: issued challenges, each taken at most once.
extension SQLiteStore {
    private static let insertCeremony = """
        INSERT INTO pending_ceremonies (\(SQLiteRows.ceremonyColumns), tenant) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, current_tenant())
        """
    /// Finding and consuming in one statement: of two racing answers, one gets the row.
    private static let takeCeremony = """
        DELETE FROM pending_ceremonies WHERE challenge_hash = ? AND tenant = current_tenant() RETURNING \(SQLiteRows.ceremonyColumns)
        """
    private static let ceremonyExists = "SELECT 1 FROM pending_ceremonies WHERE challenge_hash = ? AND tenant = current_tenant()"
    private static let ceremonyByChallenge = """
        SELECT \(SQLiteRows.ceremonyColumns) FROM pending_ceremonies WHERE challenge_hash = ? AND tenant = current_tenant()
        """
    private static let credentialWithOwner = """
        SELECT \(SQLiteRows.credentialColumns("c.")), \(SQLiteRows.userColumns("u."))
        FROM credentials c JOIN users u ON u.handle = c.user_handle AND u.tenant = c.tenant WHERE c.id = ? AND c.tenant = current_tenant()
        """
    /// Column of the owner in ``credentialWithOwner``.
    private static let ownerOffset: Int32 = 20
    /// The ceremony, the user its handle names (NULL columns when there is none) and whether the handle has any
    /// security event, in one row; no row when the challenge has no ceremony.
    private static let ceremonyWithUser = """
        SELECT \(StoreColumns.ceremonies("t.")), \(SQLiteRows.userColumns("u.")),
            EXISTS (SELECT 1 FROM security_events e WHERE e.user_handle = t.user_handle AND e.tenant = t.tenant)
        FROM pending_ceremonies t LEFT JOIN users u ON u.handle = t.user_handle AND u.tenant = t.tenant
        WHERE t.challenge_hash = ? AND t.tenant = current_tenant()
        """
    /// Columns of the user and of the history in ``ceremonyWithUser``.
    private static let (ceremonyUserOffset, ceremonyHistoryOffset): (Int32, Int32) = (11, 17)

    public func savePendingCeremony(_ ceremony: PendingCeremony) async throws {
        try await withStatement(Self.insertCeremony) { statement in
            try statement.bind(
                ceremony.challengeHash, ceremony.kind.rawValue, ceremony.userHandle, ceremony.username,
                ceremony.displayName, ceremony.userVerification.rawValue, ceremony.bindingHash, ceremony.expiresAt,
                ceremony.enrollmentTicketHash, ceremony.conditional, ceremony.nonce)
            do {
                try statement.step()
            } catch is SQLiteConstraintError {
                throw StoreError(.database, "a pending ceremony with this challenge exists already")
            }
        }
    }

    public func takePendingCeremony(challengeHash: [UInt8]) async throws -> PendingCeremony? {
        try await withDatabase { try Self.takeCeremony(challengeHash, from: $0) }
    }

    public func pendingChallenges(among challengeHashes: [[UInt8]]) async throws -> Set<[UInt8]> {
        try await withDatabase { database in
            var pending: Set<[UInt8]> = []
            for hash in challengeHashes {
                let exists = try database.withStatement(Self.ceremonyExists) { row in
                    try row.bind(hash)
                    return try row.step()
                }
                if exists { pending.insert(hash) }
            }
            return pending
        }
    }

    public func signInLookup(challengeHash: [UInt8], credentialID: [UInt8]) async throws -> SignInLookup {
        try await withDatabase { database in
            let ceremony = try database.withStatement(Self.ceremonyByChallenge) { row in
                try row.bind(challengeHash)
                return try row.step() ? try SQLiteRows.ceremony(row) : nil
            }
            return try database.withStatement(Self.credentialWithOwner) { row in
                try row.bind(credentialID)
                guard try row.step() else { return SignInLookup(ceremony: ceremony, credential: nil, owner: nil) }
                return SignInLookup(
                    ceremony: ceremony, credential: try SQLiteRows.credential(row), owner: SQLiteRows.user(row, at: Self.ownerOffset))
            }
        }
    }

    public func registrationLookup(challengeHash: [UInt8]) async throws -> RegistrationLookup {
        try await withStatement(Self.ceremonyWithUser) { row in
            try row.bind(challengeHash)
            guard try row.step() else { return RegistrationLookup(ceremony: nil, user: nil, userHandleHasHistory: false) }
            return RegistrationLookup(
                ceremony: try SQLiteRows.ceremony(row),
                user: row.isNull(Self.ceremonyUserOffset) ? nil : SQLiteRows.user(row, at: Self.ceremonyUserOffset),
                userHandleHasHistory: row.bool(Self.ceremonyHistoryOffset))
        }
    }

    private static func takeCeremony(_ challengeHash: [UInt8], from database: SQLiteConnection) throws -> PendingCeremony? {
        try database.withStatement(takeCeremony) { row in
            try row.bind(challengeHash)
            guard try row.step() else { return nil }
            let ceremony = try SQLiteRows.ceremony(row)
            try row.finish()
            return ceremony
        }
    }
}
