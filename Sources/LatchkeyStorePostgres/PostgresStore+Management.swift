import Foundation
import LatchkeyStore
import PostgresNIO

/// Passkey management: renaming and removing passkeys, deleting accounts.
extension PostgresStore {
    public func renameCredential(id: [UInt8], ownedBy owner: [UInt8], name: String?, recording events: [SecurityEvent]) async throws
        -> CredentialRecord?
    {
        try await firstRow("""
            UPDATE credentials SET name = \(name?.utf8Bytea) WHERE id = \(id.bytea) AND tenant = \(tenant) AND user_handle = \(owner.bytea)
            RETURNING \(unescaped: PostgresRows.credentialColumns())
            """, recording: events) { try PostgresRows.credential(&$0) }
    }

    /// Locks the owner's row first, so two removals of one user's passkeys run one after the other
    /// and the second counts what the first left: of a user's last two passkeys, racing removals
    /// (from any instances) delete one. A guarded DELETE alone would not do: each would count two
    /// passkeys in its own snapshot. `FOR NO KEY UPDATE` does not block sign-ins and registrations,
    /// which only need the user to exist.
    public func deleteCredential(id: [UInt8], ownedBy owner: [UInt8], recording events: [SecurityEvent]) async throws
        -> CredentialDeletion
    {
        let outbox = webhooks, tenant = tenant
        return try await transaction { connection in
            let userExists = try await Self.rows(
                "SELECT FROM users WHERE handle = \(owner.bytea) AND tenant = \(tenant) FOR NO KEY UPDATE", on: connection) { _ in true }
            guard !userExists.isEmpty else { return .notFound }
            let counts = try await Self.rows("""
                SELECT count(*) FILTER (WHERE id = \(id.bytea)), count(*) FROM credentials
                WHERE user_handle = \(owner.bytea) AND tenant = \(tenant)
                """, on: connection) { row in (owned: try row.next(Int64.self), all: try row.next(Int64.self)) }.first
            guard let counts, counts.owned > 0 else { return .notFound }
            guard counts.all > 1 else { return .lastCredential }
            let deleted = try await Self.rows("""
                DELETE FROM credentials WHERE id = \(id.bytea) AND tenant = \(tenant) AND user_handle = \(owner.bytea) RETURNING 1
                """, on: connection) { _ in true }
            // Gone meanwhile (an admin's removal does not lock the user): nothing changed here.
            guard !deleted.isEmpty else { return .notFound }
            try await Self.insert(events, of: tenant, outbox: outbox, on: connection)
            return .deleted
        }
    }

    /// Locks the user's row first: registrations and sign-ins for this user wait, so no passkey or
    /// session is added between the deletes and then removed by the cascade without being reported.
    public func deleteUser(handle: [UInt8], recording events: [SecurityEvent]) async throws -> [[UInt8]]? {
        let outbox = webhooks, tenant = tenant
        return try await transaction { connection in
            let found = try await Self.rows(
                "SELECT FROM users WHERE handle = \(handle.bytea) AND tenant = \(tenant) FOR UPDATE", on: connection) { _ in true }
            guard !found.isEmpty else { return nil }
            // Children first and explicitly, rather than through ON DELETE CASCADE, to learn the
            // removed credential IDs and to reach pending ceremonies, which have no foreign key.
            let credentialIDs = try await Self.rows("""
                DELETE FROM credentials WHERE user_handle = \(handle.bytea) AND tenant = \(tenant) RETURNING id
                """, on: connection) { try $0.bytes() }
            try await Self.execute("DELETE FROM sessions WHERE user_handle = \(handle.bytea) AND tenant = \(tenant)", on: connection)
            try await Self.execute(
                "DELETE FROM pending_ceremonies WHERE user_handle = \(handle.bytea) AND tenant = \(tenant)", on: connection)
            try await Self.execute("DELETE FROM users WHERE handle = \(handle.bytea) AND tenant = \(tenant)", on: connection)
            try await Self.insert(events, of: tenant, outbox: outbox, on: connection)
            return credentialIDs
        }
    }
}
