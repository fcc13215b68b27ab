import Foundation
import LatchkeyStore

/// The contacts accounts were created with.
extension SQLiteStore {
    private static let insertContact = "INSERT INTO user_contacts (tenant, user_handle, kind, value) VALUES (current_tenant(), ?, ?, ?)"
    private static let contactOfUser = "SELECT kind, value FROM user_contacts WHERE tenant = current_tenant() AND user_handle = ?"
    private static let removeContact = "DELETE FROM user_contacts WHERE tenant = current_tenant() AND user_handle = ?"

    public func contact(ofUser handle: [UInt8]) async throws -> UserContact? {
        try await withStatement(Self.contactOfUser) { row in
            try row.bind(handle)
            return try row.step() ? Self.contact(kind: row.text(0), value: row.text(1)) : nil
        }
    }

    public func setContact(_ contact: UserContact?, ofUser handle: [UInt8], recording events: [SecurityEvent]) async throws -> Bool {
        try await withTransaction { database in
            guard try Self.userExists(handle, in: database) else { return false }
            try database.withStatement(Self.removeContact) { statement in
                try statement.bind(handle)
                try statement.step()
            }
            if let contact { try Self.insert(contact, of: handle, into: database) }
            try insert(events, into: database)
            return true
        }
    }

    static func insert(_ contact: UserContact, of handle: [UInt8], into database: SQLiteConnection) throws {
        try database.withStatement(insertContact) { statement in
            try statement.bind(handle, contact.kind.rawValue, contact.value)
            try statement.step()
        }
    }

    /// A stored contact; nil for a kind this version does not know.
    static func contact(kind: String, value: String) -> UserContact? {
        UserContact.Kind(rawValue: kind).map { UserContact(kind: $0, value: value) }
    }
}
