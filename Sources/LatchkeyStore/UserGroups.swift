import Foundation

/// The groups the store's tenant's users belong to: names an administrator gives (`admins`, `staff`), which the
/// OpenID provider releases as the `groups` claim and by which a client may admit only some users.
public protocol UserGroupStore: Sendable {
    /// The groups of the user with this handle, by name.
    func groups(ofUser handle: [UInt8]) async throws -> [String]
    /// Makes `groups` the user's groups (none removes them all), with `events`, in one transaction; false when there
    /// is no such user.
    func setGroups(_ groups: [String], ofUser handle: [UInt8], recording events: [SecurityEvent]) async throws -> Bool
}
