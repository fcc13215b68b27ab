import Foundation
import LatchkeyStore

/// Accounts moved in (MIGRATING.md), each in one transaction.
extension SQLiteStore {
    private static let usernameOfHandle = "SELECT username FROM users WHERE handle = ? AND tenant = current_tenant()"
    private static let handleOfUsername = "SELECT handle FROM users WHERE username = ? AND tenant = current_tenant()"
    private static let ownerOfCredential = "SELECT user_handle FROM credentials WHERE id = ? AND tenant = current_tenant()"
    private static let keysOfUser = "SELECT id, public_key FROM credentials WHERE user_handle = ? AND tenant = current_tenant()"
    private static let addGroupOfImport = "INSERT INTO user_groups (tenant, user_handle, name) VALUES (current_tenant(), ?, ?)"

    public func importAccount(_ account: ImportedAccount, recording events: [SecurityEvent]) async throws -> AccountImportOutcome {
        do {
            // Named as the store call, for the call policy's timing and the planner test.
            return try await write(account, recording: events, function: #function)
        } catch let error as StoreError where Self.clashes.contains(error.code) {
            return .refused(error.message)
        }
    }

    /// The errors of a write that clashes with another account, which refuse the import (its transaction rolled back).
    private static let clashes: Set<StoreError.Code> = [.usernameTaken, .externalIdTaken, .credentialAlreadyRegistered]

    private func write(_ account: ImportedAccount, recording events: [SecurityEvent], function: String) async throws -> AccountImportOutcome {
        try await withTransaction(function) { database in
            let user = account.user
            if let username = try Self.first(Self.usernameOfHandle, user.handle, in: database) { row in row.text(0) } {
                let stored = try Self.all(Self.keysOfUser, user.handle, in: database) { row in [row.blob(0), row.blob(1)] }
                let imported = account.credentials.map { [$0.id, $0.publicKey] }
                guard username == user.username, Set(stored) == Set(imported) else {
                    return .refused("an account with this user handle is here with other data (username or passkeys)")
                }
                return .unchanged
            }
            if try Self.first(Self.handleOfUsername, user.username, in: database, { _ in true }) != nil {
                return .refused("username \"\(user.username)\" belongs to another account")
            }
            for (index, credential) in account.credentials.enumerated()
            where try Self.first(Self.ownerOfCredential, credential.id, in: database, { _ in true }) != nil {
                return .refused("passkey \(index + 1) of \(account.credentials.count) has the credential ID of another account's passkey")
            }
            try Self.insert(user, into: database)
            for credential in account.credentials { try Self.insert(credential, into: database) }
            if let contact = account.contact { try Self.insert(contact, of: user.handle, into: database) }
            for name in Set(account.groups) {
                try database.withStatement(Self.addGroupOfImport) { statement in
                    try statement.bind(user.handle, name)
                    try statement.step()
                }
            }
            try insert(events, into: database)
            return .imported
        }
    }

    private static func first<T>(
        _ sql: String, _ key: some SQLiteBindable, in database: SQLiteConnection, _ read: (SQLiteStatement) throws -> T
    ) throws -> T? {
        try database.withStatement(sql) { row in
            try row.bind(key)
            return try row.step() ? try read(row) : nil
        }
    }

    private static func all<T>(
        _ sql: String, _ key: some SQLiteBindable, in database: SQLiteConnection, _ read: (SQLiteStatement) throws -> T
    ) throws -> [T] {
        try database.withStatement(sql) { row in
            try row.bind(key)
            var rows: [T] = []
            while try row.step() { rows.append(try read(row)) }
            return rows
        }
    }
}
