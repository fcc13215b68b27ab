import Foundation
import LatchkeyStore

/// The contacts accounts were created with.
extension PostgresStore {
    public func contact(ofUser handle: [UInt8]) async throws -> UserContact? {
        try await firstRow("SELECT kind, value FROM user_contacts WHERE tenant = \(tenant) AND user_handle = \(handle.bytea)") { row in
            let kind = try row.next(String.self), value = try row.utf8()
            return UserContact.Kind(rawValue: kind).map { UserContact(kind: $0, value: value) }
        } ?? nil
    }

    public func setContact(_ contact: UserContact?, ofUser handle: [UInt8], recording events: [SecurityEvent]) async throws -> Bool {
        let outbox = webhooks, tenant = tenant
        return try await transaction { connection in
            // The user's row held against a deletion until the contact is written.
            let found = try await Self.rows(
                "SELECT 1 FROM users WHERE handle = \(handle.bytea) AND tenant = \(tenant) FOR SHARE", on: connection) { _ in true }
            guard !found.isEmpty else { return false }
            try await Self.execute("DELETE FROM user_contacts WHERE tenant = \(tenant) AND user_handle = \(handle.bytea)", on: connection)
            if let contact {
                try await Self.execute("""
                    INSERT INTO user_contacts (tenant, user_handle, kind, value)
                    VALUES (\(tenant), \(handle.bytea), \(contact.kind.rawValue), \(contact.value.utf8Bytea))
                    """, on: connection)
            }
            try await Self.insert(events, of: tenant, outbox: outbox, on: connection)
            return true
        }
    }
}
