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

    /// Every account as JSON Lines, handed to `write` in pieces of at least `pieceSize` bytes (the last may be
    /// smaller): what a file or a streamed reply writes. Returns how many accounts there were.
    @discardableResult
    package func forEachPiece(of pieceSize: Int = 64 * 1024, _ write: (Data) async throws -> Void) async throws -> Int {
        var piece = Data(), count = 0
        try await forEach { account in
            piece.append(try Self.line(account))
            count += 1
            if piece.count >= pieceSize {
                try await write(piece)
                piece.removeAll(keepingCapacity: true)
            }
        }
        if !piece.isEmpty { try await write(piece) }
        return count
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
