import Foundation

/// The contact an account was created with (iOS and macOS 26's account-creation sheet hands the app one with the new
/// passkey): an email address or a phone number, as the person gave it, never verified by Latchkey.
public struct UserContact: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case email
        case phone
    }

    public var kind: Kind
    /// An email address, or a phone number in E.164 form (`+` and digits).
    public var value: String

    public init(kind: Kind, value: String) {
        self.kind = kind
        self.value = value
    }
}

/// The contacts of the store's tenant's users, one at most each; a user's goes with the user.
public protocol UserContactStore: Sendable {
    /// The contact of the user with this handle, if they have one.
    func contact(ofUser handle: [UInt8]) async throws -> UserContact?
    /// Replaces the user's contact (nil removes it), with `events`; false, changing nothing, when there is no such user.
    func setContact(_ contact: UserContact?, ofUser handle: [UInt8], recording events: [SecurityEvent]) async throws -> Bool
}
