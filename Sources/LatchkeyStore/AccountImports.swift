/// An account moved in from another server (MIGRATING.md): the user, their passkeys, contact and groups, written
/// together or not at all.
public struct ImportedAccount: Sendable, Equatable {
    public var user: UserRecord
    public var credentials: [CredentialRecord]
    public var contact: UserContact?
    public var groups: [String]

    public init(user: UserRecord, credentials: [CredentialRecord], contact: UserContact?, groups: [String]) {
        self.user = user
        self.credentials = credentials
        self.contact = contact
        self.groups = groups
    }
}

/// What an import of one account did.
public enum AccountImportOutcome: Sendable, Equatable {
    case imported
    /// The account is here already: the same user handle and username, and the same passkeys (by ID and public key).
    /// Nothing is written, so an import can run twice.
    case unchanged
    /// Nothing is written; the sentence says why (a username or passkey of another account, a user handle taken
    /// with other data).
    case refused(String)
}

/// Accounts moved in, one transaction each.
public protocol AccountImportStore: Sendable {
    /// Writes `account` with `events` unless it is here already or clashes with another account. A passkey ID is
    /// never bound to a second account.
    func importAccount(_ account: ImportedAccount, recording events: [SecurityEvent]) async throws -> AccountImportOutcome
}
