import Foundation
import LatchkeyStore

/// Passkey management: renaming and removing passkeys, deleting accounts.
extension SQLiteStore {
    private static let renameCredential = """
        UPDATE credentials SET name = ? WHERE id = ? AND user_handle = ? AND tenant = current_tenant() RETURNING \(SQLiteRows.credentialColumns())
        """
    /// Deletes only when the user keeps another passkey, so two racing removals of a user's last
    /// two passkeys cannot both succeed: SQLite runs the statement under the write lock.
    private static let deleteUnlessLast = """
        DELETE FROM credentials WHERE id = ? AND user_handle = ? AND tenant = current_tenant()
        AND (SELECT COUNT(*) FROM credentials WHERE user_handle = ? AND tenant = current_tenant()) > 1
        """
    private static let ownedCredentialExists = "SELECT 1 FROM credentials WHERE id = ? AND user_handle = ? AND tenant = current_tenant()"
    private static let deleteCredentialsOfUser = "DELETE FROM credentials WHERE user_handle = ? AND tenant = current_tenant() RETURNING id"
    private static let deleteSessionsOfUser = "DELETE FROM sessions WHERE user_handle = ? AND tenant = current_tenant()"
    private static let deleteCeremoniesOfUser = "DELETE FROM pending_ceremonies WHERE user_handle = ? AND tenant = current_tenant()"
    private static let deleteUser = "DELETE FROM users WHERE handle = ? AND tenant = current_tenant()"

    public func renameCredential(id: [UInt8], ownedBy owner: [UInt8], name: String?, recording events: [SecurityEvent]) async throws
        -> CredentialRecord?
    {
        try await firstRow(Self.renameCredential, recording: events, bind: { try $0.bind(name, id, owner) }) {
            try SQLiteRows.credential($0)
        }
    }

    public func deleteCredential(id: [UInt8], ownedBy owner: [UInt8], recording events: [SecurityEvent]) async throws
        -> CredentialDeletion
    {
        try await withTransaction { database in
            let deleted = try database.withStatement(Self.deleteUnlessLast) { statement in
                try statement.bind(id, owner, owner)
                try statement.step()
                return database.changes
            }
            if deleted > 0 {
                try insert(events, into: database)
                return .deleted
            }
            let owned = try database.withStatement(Self.ownedCredentialExists) { row in
                try row.bind(id, owner)
                return try row.step()
            }
            return owned ? .lastCredential : .notFound
        }
    }

    public func deleteUser(handle: [UInt8], recording events: [SecurityEvent]) async throws -> [[UInt8]]? {
        try await withTransaction { database in
            // Children first and explicitly, rather than through ON DELETE CASCADE, to learn the
            // removed credential IDs and to reach pending ceremonies, which have no foreign key.
            let credentialIDs = try database.withStatement(Self.deleteCredentialsOfUser) { row in
                try row.bind(handle)
                var ids: [[UInt8]] = []
                while try row.step() { ids.append(row.blob(0)) }
                return ids
            }
            for sql in [Self.deleteSessionsOfUser, Self.deleteCeremoniesOfUser] {
                try database.withStatement(sql) { statement in
                    try statement.bind(handle)
                    try statement.step()
                }
            }
            let deletedUsers = try database.withStatement(Self.deleteUser) { statement in
                try statement.bind(handle)
                try statement.step()
                return database.changes
            }
            guard deletedUsers > 0 else { return nil }
            try insert(events, into: database)
            return credentialIDs
        }
    }
}
