import Foundation

/// A verified registration to store: the credential, the user to create with it when it is their
/// first, and the session that signs a new user in.
public struct NewRegistration: Sendable, Equatable {
    /// SHA-256 of the challenge it answered, when it answered one: its pending ceremony is consumed in
    /// the same transaction, and when it is gone by then (another answer took it) nothing is written.
    public var challengeHash: [UInt8]?
    public var credential: CredentialRecord
    /// Created in the same transaction when the credential is the user's first.
    public var newUser: UserRecord?
    /// Started in the same transaction when given.
    public var session: SessionRecord?
    /// Token hashes of sessions the new session replaces.
    public var endingSessions: [[UInt8]]
    /// The enrollment ticket this registration spends, in the same transaction, with the time it
    /// is spent at; the registration writes nothing when the ticket is no longer usable then.
    public var spendingTicket: (hash: [UInt8], at: Date)?
    /// The security events it makes (user created, passkey registered, ticket used), written in
    /// the same transaction.
    public var events: [SecurityEvent]
    /// The new user's contact, kept with them in the same transaction (only with `newUser`).
    public var contact: UserContact?

    public init(
        challengeHash: [UInt8]? = nil, credential: CredentialRecord, newUser: UserRecord?, session: SessionRecord? = nil,
        endingSessions: [[UInt8]] = [], spendingTicket: (hash: [UInt8], at: Date)? = nil, events: [SecurityEvent] = [],
        contact: UserContact? = nil
    ) {
        self.contact = contact
        self.challengeHash = challengeHash
        self.credential = credential
        self.newUser = newUser
        self.session = session
        self.endingSessions = endingSessions
        self.spendingTicket = spendingTicket
        self.events = events
    }

    public static func == (lhs: NewRegistration, rhs: NewRegistration) -> Bool {
        lhs.challengeHash == rhs.challengeHash && lhs.credential == rhs.credential && lhs.newUser == rhs.newUser && lhs.session == rhs.session
            && lhs.endingSessions == rhs.endingSessions && lhs.spendingTicket?.hash == rhs.spendingTicket?.hash
            && lhs.spendingTicket?.at == rhs.spendingTicket?.at && lhs.events == rhs.events
    }
}

/// A sign-in that passed verification, to record in one transaction.
public struct CompletedSignIn: Sendable, Equatable {
    /// SHA-256 of the challenge it answered: its pending ceremony is consumed in the same transaction.
    public var challengeHash: [UInt8]
    public var credentialID: [UInt8]
    /// The counter read before verifying; the write happens only if it is still this value.
    public var previousSignCount: UInt32
    public var signCount: UInt32
    public var backedUp: Bool
    public var userVerified: Bool
    public var at: Date
    public var session: SessionRecord
    /// Token hashes of sessions the new session replaces.
    public var endingSessions: [[UInt8]]
    /// The security events it makes (sign-in succeeded), written only when it is recorded.
    public var events: [SecurityEvent]

    public init(
        challengeHash: [UInt8], credentialID: [UInt8], previousSignCount: UInt32, signCount: UInt32, backedUp: Bool,
        userVerified: Bool, at: Date, session: SessionRecord, endingSessions: [[UInt8]] = [], events: [SecurityEvent] = []
    ) {
        self.challengeHash = challengeHash
        self.credentialID = credentialID
        self.previousSignCount = previousSignCount
        self.signCount = signCount
        self.backedUp = backedUp
        self.userVerified = userVerified
        self.at = at
        self.session = session
        self.endingSessions = endingSessions
        self.events = events
    }
}

/// What the start of a sign-in result reads: the pending ceremony (nil when the challenge is
/// unknown or spent) and the credential with its owner (nil when the credential is unknown).
public struct SignInLookup: Sendable, Equatable {
    public var ceremony: PendingCeremony?
    public var credential: CredentialRecord?
    public var owner: UserRecord?

    public init(ceremony: PendingCeremony?, credential: CredentialRecord?, owner: UserRecord?) {
        self.ceremony = ceremony
        self.credential = credential
        self.owner = owner
    }
}

/// What the start of a registration result reads: the pending ceremony (nil when the challenge is
/// unknown or spent), the user its user handle names (nil for a user the registration creates), and
/// whether that user handle has any security event: a handle with a history and no user is an account
/// deleted since the options were issued.
public struct RegistrationLookup: Sendable, Equatable {
    public var ceremony: PendingCeremony?
    public var user: UserRecord?
    public var userHandleHasHistory: Bool

    public init(ceremony: PendingCeremony?, user: UserRecord?, userHandleHasHistory: Bool) {
        self.ceremony = ceremony
        self.user = user
        self.userHandleHasHistory = userHandleHasHistory
    }
}

/// A live session and the user it signs in.
public struct SessionWithUser: Sendable, Equatable {
    public var session: SessionRecord
    public var user: UserRecord

    public init(session: SessionRecord, user: UserRecord) {
        self.session = session
        self.user = user
    }
}

/// What ``LatchkeyStore/recordSignIn(_:)`` did.
public enum SignInRecording: Sendable, Equatable {
    /// The sign-in is recorded and its session started.
    case recorded
    /// The challenge was answered already (its pending ceremony is gone); nothing was written.
    case challengeSpent
    /// Another sign-in moved the counter first; only the challenge was consumed.
    case counterMoved
    /// The credential was removed (or its user deleted) since it was read; only the challenge was consumed.
    case credentialRemoved
}

/// What ``LatchkeyStore/deleteCredential(id:ownedBy:recording:)`` did.
public enum CredentialDeletion: Sendable, Equatable {
    case deleted
    /// No credential with this ID belongs to this user (it may belong to another).
    case notFound
    /// It is the user's only passkey; removing it would lock them out. Nothing was deleted.
    case lastCredential
}

/// What the store holds that is still live, for metrics.
public struct LiveRecordCounts: Sendable, Equatable {
    public var pendingCeremonies: Int
    public var sessions: Int

    public init(pendingCeremonies: Int, sessions: Int) {
        self.pendingCeremonies = pendingCeremonies
        self.sessions = sessions
    }
}
