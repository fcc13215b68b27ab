import Foundation
import LatchkeyStore
import PostgresNIO

/// Accounts moved in (MIGRATING.md), each in one transaction.
extension PostgresStore {
    public func importAccount(_ account: ImportedAccount, recording events: [SecurityEvent]) async throws -> AccountImportOutcome {
        let outbox = webhooks, tenant = tenant
        do {
            return try await transaction { connection in
                let user = account.user
                let stored = try await Self.rows(
                    "SELECT username FROM users WHERE handle = \(user.handle.bytea) AND tenant = \(tenant) FOR SHARE", on: connection
                ) { try $0.utf8() }
                if let username = stored.first {
                    let keys = try await Self.rows("""
                        SELECT id, public_key FROM credentials WHERE user_handle = \(user.handle.bytea) AND tenant = \(tenant)
                        """, on: connection) { row in [try row.bytes(), try row.bytes()] }
                    let imported = account.credentials.map { [$0.id, $0.publicKey] }
                    guard username == user.username, Set(keys) == Set(imported) else {
                        return .refused("an account with this user handle is here with other data (username or passkeys)")
                    }
                    return .unchanged
                }
                let named = try await Self.rows(
                    "SELECT 1 FROM users WHERE username = \(user.username.utf8Bytea) AND tenant = \(tenant)", on: connection) { _ in true }
                guard named.isEmpty else { return .refused("username \"\(user.username)\" belongs to another account") }
                for (index, credential) in account.credentials.enumerated() {
                    let owned = try await Self.rows(
                        "SELECT 1 FROM credentials WHERE id = \(credential.id.bytea) AND tenant = \(tenant)", on: connection) { _ in true }
                    guard owned.isEmpty else {
                        return .refused("passkey \(index + 1) of \(account.credentials.count) has the credential ID of another account's passkey")
                    }
                }
                try await Self.execute(PostgresRows.insert(user, of: tenant), on: connection)
                for credential in account.credentials { try await Self.execute(PostgresRows.insert(credential, of: tenant), on: connection) }
                if let contact = account.contact {
                    try await Self.execute("""
                        INSERT INTO user_contacts (tenant, user_handle, kind, value)
                        VALUES (\(tenant), \(user.handle.bytea), \(contact.kind.rawValue), \(contact.value.utf8Bytea))
                        """, on: connection)
                }
                for name in Set(account.groups) {
                    try await Self.execute(
                        "INSERT INTO user_groups (tenant, user_handle, name) VALUES (\(tenant), \(user.handle.bytea), \(name.utf8Bytea))",
                        on: connection)
                }
                try await Self.insert(events, of: tenant, outbox: outbox, on: connection)
                return .imported
            }
        } catch let error as StoreError where Self.importClashes.contains(error.code) {
            // Another import or registration wrote the same name or passkey first: rolled back.
            return .refused(error.message)
        }
    }

    private static let importClashes: Set<StoreError.Code> = [.usernameTaken, .externalIdTaken, .credentialAlreadyRegistered]
}
