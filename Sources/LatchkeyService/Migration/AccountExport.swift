import Foundation
import LatchkeyStore

/// Every account of a tenant in the migration format (``MigratedAccount``), read page by page so an export of a
/// million accounts holds one page in memory: the way out of Latchkey, and into another Latchkey.
package struct AccountExport: Sendable {
    let store: any LatchkeyStore
    /// Accounts read per page.
    let pageSize: Int

    package init(store: any LatchkeyStore, pageSize: Int = 500) {
        self.store = store
        self.pageSize = pageSize
    }

    /// Calls `write` with each account, by username.
    package func forEach(_ write: (MigratedAccount) async throws -> Void) async throws {
        var after: String?
        while true {
            let page = try await store.users(after: after, limit: pageSize)
            for overview in page { try await write(try await account(of: overview.user)) }
            guard page.count == pageSize, let last = page.last else { return }
            after = last.user.username
        }
    }

    /// The account named `username`, if there is one.
    package func account(named username: String) async throws -> MigratedAccount? {
        guard let user = try await store.user(named: username) else { return nil }
        return try await account(of: user)
    }

    private func account(of user: UserRecord) async throws -> MigratedAccount {
        MigratedAccount(
            user, passkeys: try await store.credentials(ofUser: user.handle), contact: try await store.contact(ofUser: user.handle),
            groups: try await store.groups(ofUser: user.handle))
    }

    /// `account` as one line of JSON Lines (with its newline): members in a fixed order, so two exports of the same
    /// store are the same bytes.
    package static func line(_ account: MigratedAccount) throws -> Data {
        var data = try encoder.encode(account)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
