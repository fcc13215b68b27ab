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
}
