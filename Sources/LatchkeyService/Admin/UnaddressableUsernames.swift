import Foundation
import LatchkeyStore

/// Accounts kept before usernames with a `.` or `..` segment were refused (`../bob`, `a/./b`): they still sign in,
/// but no `/admin/v1/users/{username}` route can name them, since no URL path carries such a segment.
/// `latchkey users unaddressable` lists them; `latchkey users rename` gives one a name every route can carry.
public enum UnaddressableUsernames {
    /// Every account whose username no admin route can address, in username order.
    public static func list(in store: any LatchkeyStore) async throws -> [UserRecord] {
        let pageSize = 200
        var found: [UserRecord] = []
        var after: String?
        while true {
            let page = try await store.users(after: after, limit: pageSize)
            found += page.map(\.user).filter { UserNames.unaddressableSegment($0.username) != nil }
            guard page.count == pageSize, let last = page.last else { return found }
            after = last.user.username
        }
    }

    /// Renames the account kept as `old` to `new`, checked as every new username is; the handle, so its passkeys and
    /// token subject, stays. A display name that was the username follows it, as an admin rename does. Recorded as
    /// `user.updated` by the command line.
    public static func rename(_ old: String, to new: String, in store: any LatchkeyStore, now: Date = Date()) async throws -> UserRecord {
        guard let user = try await store.user(named: old) else {
            throw UsernameRenameError("there is no account kept as \(old.debugDescription) (give the name as `latchkey users unaddressable` lists it)")
        }
        let renamed: UserRecord
        do {
            renamed = try UserNames.renaming(user, to: try UserNames.spelling(new))
        } catch let error as ServiceError {
            throw UsernameRenameError("the new name: \(error.message)")
        }
        guard renamed.username != user.username else { throw UsernameRenameError("the account is kept as \(old.debugDescription) already") }
        let event = SecurityEvent(
            id: try SecurityEventRecorder.newID(), type: .userUpdated, occurredAt: now, userHandle: user.handle,
            username: renamed.username, actor: .system("cli"), detail: "changed username (was \"\(user.username)\")")
        do {
            guard try await store.updateUser(renamed, from: user, recording: [event]) else {
                throw UsernameRenameError("the account was changed or removed by another request at the same time; run the command again")
            }
        } catch let error as StoreError where error.code == .usernameTaken {
            throw UsernameRenameError("another account is kept as \(renamed.username.debugDescription); choose another name")
        }
        return renamed
    }
}

/// Why `latchkey users rename` changed nothing.
public struct UsernameRenameError: Error, Sendable, CustomStringConvertible {
    public let message: String
    package init(_ message: String) { self.message = message }
    public var description: String { message }
}
