import Foundation
import LatchkeyStore
import PostgresNIO

/// Pending ceremonies: issued challenges, each taken at most once, whichever instance answers.
extension PostgresStore {
    public func savePendingCeremony(_ ceremony: PendingCeremony) async throws {
        try await execute(SignInStatements.SavePendingCeremony(ceremony: ceremony, tenant: tenant, instance: instance))
    }

    /// Finding and consuming in one statement: of two racing answers, the second `DELETE` waits
    /// for the first and then finds no row.
    public func takePendingCeremony(challengeHash: [UInt8]) async throws -> PendingCeremony? {
        try await firstRow("""
            DELETE FROM pending_ceremonies WHERE challenge_hash = \(challengeHash.bytea) AND tenant = \(tenant)
            RETURNING \(unescaped: PostgresRows.ceremonyColumns())
            """) { try PostgresRows.ceremony(&$0) }
    }

    public func pendingChallenges(among challengeHashes: [[UInt8]]) async throws -> Set<[UInt8]> {
        guard !challengeHashes.isEmpty else { return [] }
        return Set(try await rows("""
            SELECT challenge_hash FROM pending_ceremonies WHERE challenge_hash = ANY(\(challengeHashes.map(\.bytea))) AND tenant = \(tenant)
            """) { try $0.bytes() })
    }

    /// One statement (``SignInStatements/SignInLookupStatement``): the ceremony and the credential
    /// with its owner; the LEFT JOINs give one row whatever is missing.
    public func signInLookup(challengeHash: [UInt8], credentialID: [UInt8]) async throws -> SignInLookup {
        let rows = try await rows(SignInStatements.SignInLookupStatement(
            challengeHash: challengeHash, credentialID: credentialID, tenant: tenant))
        guard let lookup = rows.first else { throw StoreError(.database, "the sign-in lookup returned no row") }
        return lookup
    }

    /// One statement (``SignInStatements/RegistrationLookupStatement``): the ceremony, the user its handle
    /// names and whether that handle has a history.
    public func registrationLookup(challengeHash: [UInt8]) async throws -> RegistrationLookup {
        let rows = try await rows(SignInStatements.RegistrationLookupStatement(challengeHash: challengeHash, tenant: tenant))
        guard let lookup = rows.first else { throw StoreError(.database, "the registration lookup returned no row") }
        return lookup
    }
}
