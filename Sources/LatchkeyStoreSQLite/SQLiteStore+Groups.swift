import Foundation
import LatchkeyStore

/// The groups users are in.
extension SQLiteStore {
    private static let groupsOfUser = "SELECT name FROM user_groups WHERE tenant = current_tenant() AND user_handle = ? ORDER BY name"
    private static let removeGroups = "DELETE FROM user_groups WHERE tenant = current_tenant() AND user_handle = ?"
    private static let addGroup = "INSERT INTO user_groups (tenant, user_handle, name) VALUES (current_tenant(), ?, ?)"

    public func groups(ofUser handle: [UInt8]) async throws -> [String] {
        try await withStatement(Self.groupsOfUser) { row in
            try row.bind(handle)
            var names: [String] = []
            while try row.step() { names.append(row.text(0)) }
            return names
        }
    }

    /// Whether the tenant has a user with this handle, inside the caller's transaction.
    static func userExists(_ handle: [UInt8], in database: SQLiteConnection) throws -> Bool {
        try database.withStatement("SELECT 1 FROM users WHERE handle = ? AND tenant = current_tenant()") { row in
            try row.bind(handle)
            return try row.step()
        }
    }

    public func setGroups(_ groups: [String], ofUser handle: [UInt8], recording events: [SecurityEvent]) async throws -> Bool {
        try await withTransaction { database in
            guard try Self.userExists(handle, in: database) else { return false }
            try database.withStatement(Self.removeGroups) { statement in
                try statement.bind(handle)
                try statement.step()
            }
            for name in Set(groups) {
                try database.withStatement(Self.addGroup) { statement in
                    try statement.bind(handle, name)
                    try statement.step()
                }
            }
            try insert(events, into: database)
            return true
        }
    }
}
