import Foundation
import LatchkeyStore
import PostgresNIO

/// Pending ceremonies: issued challenges, each taken at most once, whichever instance answers.
extension PostgresStore {
    public func savePendingCeremony(_ ceremony: PendingCeremony) async throws {
        try await execute("""
            INSERT INTO pending_ceremonies (\(unescaped: PostgresRows.ceremonyColumns())) VALUES (
                \(ceremony.challengeHash.bytea), \(ceremony.kind.rawValue), \(ceremony.userHandle?.bytea),
                \(ceremony.username?.utf8Bytea), \(ceremony.displayName?.utf8Bytea), \(ceremony.userVerification.rawValue),
                \(ceremony.bindingHash?.bytea), \(ceremony.expiresAt)
            )
            """)
    }

    /// Finding and consuming in one statement: of two racing answers, the second `DELETE` waits
    /// for the first and then finds no row.
    public func takePendingCeremony(challengeHash: [UInt8]) async throws -> PendingCeremony? {
        try await firstRow("""
            DELETE FROM pending_ceremonies WHERE challenge_hash = \(challengeHash.bytea)
            RETURNING \(unescaped: PostgresRows.ceremonyColumns())
            """) { try PostgresRows.ceremony(&$0) }
    }

    /// One statement: the ceremony is consumed as in ``takePendingCeremony(challengeHash:)`` and
    /// the credential read with its owner; the LEFT JOINs give one row whatever is missing.
    public func takeSignInCeremony(challengeHash: [UInt8], credentialID: [UInt8]) async throws -> SignInLookup {
        let lookup = try await firstRow("""
            WITH taken AS (
                DELETE FROM pending_ceremonies WHERE challenge_hash = \(challengeHash.bytea)
                RETURNING \(unescaped: PostgresRows.ceremonyColumns())
            )
            SELECT \(unescaped: PostgresRows.ceremonyColumns("t.")), \(unescaped: PostgresRows.credentialColumns("c.")),
                \(unescaped: PostgresRows.userColumns("u."))
            FROM (SELECT) AS one
            LEFT JOIN taken t ON true
            LEFT JOIN (credentials c JOIN users u ON u.handle = c.user_handle) ON c.id = \(credentialID.bytea)
            """) { row in
            SignInLookup(
                ceremony: try PostgresRows.optional(&row, columns: PostgresRows.ceremonyColumnCount, PostgresRows.ceremony),
                credential: try PostgresRows.optional(&row, columns: PostgresRows.credentialColumnCount, PostgresRows.credential),
                owner: try PostgresRows.optional(&row, columns: PostgresRows.userColumnCount, PostgresRows.user))
        }
        guard let lookup else { throw StoreError(.database, "the sign-in lookup returned no row") }
        return lookup
    }
}
