import Foundation

/// A key a backend calls the admin API with. Only the SHA-256 of the key is kept.
public struct AdminKeyRecord: Sendable, Equatable {
    /// The name it was created under: letters, digits, `.`, `_` and `-`.
    public var name: String
    /// SHA-256 of the whole key text (`lk_admin_...`).
    public var keyHash: [UInt8]
    public var createdAt: Date
    /// Nil until the key is first used.
    public var lastUsedAt: Date?

    public init(name: String, keyHash: [UInt8], createdAt: Date, lastUsedAt: Date? = nil) {
        self.name = name
        self.keyHash = keyHash
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// A one-time permission to register one passkey for one user, issued by a backend. Only the
/// SHA-256 of the ticket is kept; a spent or revoked ticket is kept until it expires, so that a
/// second use is told what happened.
public struct EnrollmentTicketRecord: Sendable, Equatable {
    /// SHA-256 of the ticket text (`lk_ticket_...`).
    public var hash: [UInt8]
    public var userHandle: [UInt8]
    public var createdAt: Date
    public var expiresAt: Date
    /// When a registration spent it.
    public var usedAt: Date?
    /// When the backend revoked it.
    public var revokedAt: Date?

    public init(hash: [UInt8], userHandle: [UInt8], createdAt: Date, expiresAt: Date, usedAt: Date? = nil, revokedAt: Date? = nil) {
        self.hash = hash
        self.userHandle = userHandle
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
        self.revokedAt = revokedAt
    }
}

/// A key the server signs its tokens with. It is published from its creation and signs from
/// `signsFrom` (the newest generation whose time has come signs), so that verifiers have it before
/// they meet a token it signed; older ones stay published while tokens they signed may be live.
public struct SigningKeyRecord: Sendable, Equatable {
    /// 1 for the first key, one more for each rotation; unique, so two instances adding a key at
    /// once cannot both add the same generation.
    public var generation: Int
    /// The key ID tokens name in their header.
    public var keyID: String
    /// The private key, as unencrypted PKCS#8 PEM.
    public var privateKey: [UInt8]
    public var createdAt: Date
    /// When it starts signing.
    public var signsFrom: Date

    public init(generation: Int, keyID: String, privateKey: [UInt8], createdAt: Date, signsFrom: Date? = nil) {
        self.generation = generation
        self.keyID = keyID
        self.privateKey = privateKey
        self.createdAt = createdAt
        self.signsFrom = signsFrom ?? createdAt
    }
}

/// A key an app made on a device (in the Secure Enclave, typically gated by Face ID or Touch ID)
/// and enrolled for a user: it signs in with a signature over a server challenge.
public struct DeviceKeyRecord: Sendable, Equatable {
    /// SHA-256 of the public key.
    public var id: [UInt8]
    public var userHandle: [UInt8]
    /// The uncompressed P-256 point (`0x04 ‖ x ‖ y`).
    public var publicKey: [UInt8]
    /// The name the app or person gave it, if any.
    public var name: String?
    public var createdAt: Date
    public var lastUsedAt: Date?
    /// The App Attest key whose assertion vouched for the enrollment, when one did: the key was
    /// then handed over by a genuine copy of the app.
    public var appAttestKeyID: [UInt8]?

    public init(
        id: [UInt8], userHandle: [UInt8], publicKey: [UInt8], name: String?, createdAt: Date, lastUsedAt: Date? = nil,
        appAttestKeyID: [UInt8]? = nil
    ) {
        self.id = id
        self.userHandle = userHandle
        self.publicKey = publicKey
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.appAttestKeyID = appAttestKeyID
    }
}

/// A key App Attest vouched for: it lives in the Secure Enclave of a genuine device, in a copy of
/// one of the relying party's apps. Not tied to a user: an app attests its key before anyone signs in.
public struct AppAttestKeyRecord: Sendable, Equatable {
    /// SHA-256 of the public key: the key ID `DCAppAttestService` returns.
    public var keyID: [UInt8]
    /// The uncompressed P-256 point (`0x04 ‖ x ‖ y`).
    public var publicKey: [UInt8]
    /// The app (`TEAMID.bundle.id`) it was attested for.
    public var appID: String
    /// `production` or `development`.
    public var environment: String
    /// Apple's receipt, kept for fraud-risk queries.
    public var receipt: [UInt8]
    /// The highest counter of an accepted assertion (0 after the attestation).
    public var counter: UInt32
    /// Bit `k` set: the counter `counter - k` was accepted (the window of `AppAttestCounters`; 1 after the attestation).
    public var acceptedCounters: UInt64
    public var createdAt: Date
    public var lastUsedAt: Date?

    public init(
        keyID: [UInt8], publicKey: [UInt8], appID: String, environment: String, receipt: [UInt8], counter: UInt32 = 0,
        acceptedCounters: UInt64 = 1, createdAt: Date, lastUsedAt: Date? = nil
    ) {
        self.keyID = keyID
        self.publicKey = publicKey
        self.appID = appID
        self.environment = environment
        self.receipt = receipt
        self.counter = counter
        self.acceptedCounters = acceptedCounters
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// The store's App Attest keys.
public protocol AppAttestStore: Sendable {
    /// Stores an attested key; ``StoreError/Code/credentialAlreadyRegistered`` when it is stored already.
    func saveAppAttestKey(_ key: AppAttestKeyRecord) async throws
    func appAttestKey(id: [UInt8]) async throws -> AppAttestKeyRecord?
    /// Sets a key's counters (its highest counter and the window of accepted ones below it) to `new` if they are still
    /// `old`, in one statement, so that of two racing assertions that read the same counters one wins; false
    /// (writing nothing) otherwise or when the key is gone.
    func updateAppAttestCounters(
        id: [UInt8], from old: (counter: UInt32, accepted: UInt64), to new: (counter: UInt32, accepted: UInt64), at: Date
    ) async throws -> Bool
}

/// The store's device keys.
public protocol DeviceKeyStore: Sendable {
    /// Stores an enrolled key; ``StoreError/Code/credentialAlreadyRegistered`` when its ID is
    /// enrolled already, ``StoreError/Code/userNotFound`` when its user is gone. With
    /// `spendingTicket`, the enrollment ticket is marked used in the same transaction; when it is
    /// for another user, used, revoked, expired or gone by then, ``StoreError/Code/ticketNotUsable``
    /// is thrown and nothing is written.
    func saveDeviceKey(_ key: DeviceKeyRecord, spendingTicket: (hash: [UInt8], at: Date)?, recording events: [SecurityEvent])
        async throws
    func deviceKey(id: [UInt8]) async throws -> DeviceKeyRecord?
    /// A user's device keys, oldest first.
    func deviceKeys(ofUser handle: [UInt8]) async throws -> [DeviceKeyRecord]
    /// Renames a key of `owner` (nil: no name); nil when no such key is theirs.
    func renameDeviceKey(id: [UInt8], ownedBy owner: [UInt8], name: String?, recording events: [SecurityEvent]) async throws
        -> DeviceKeyRecord?
    /// Removes a key of `owner` and ends the sessions it signed in; false when no such key is theirs.
    func deleteDeviceKey(id: [UInt8], ownedBy owner: [UInt8], recording events: [SecurityEvent]) async throws -> Bool
    /// Records a sign-in with a key, starts its session and ends the sessions whose token hashes are
    /// in `endingSessions` (those the request carried), in one transaction; false (writing nothing)
    /// when the key was removed meanwhile.
    func recordDeviceKeySignIn(
        id: [UInt8], at: Date, session: SessionRecord, endingSessions: [[UInt8]], recording events: [SecurityEvent]
    ) async throws -> Bool
}

/// The store's part in a backend's control of Latchkey: users made ahead of their passkeys, admin
/// keys, enrollment tickets and token signing keys.
public protocol BackendStore: Sendable {
    /// Creates a user with no passkey; throws ``StoreError/Code/usernameTaken`` or
    /// ``StoreError/Code/externalIdTaken``, writing nothing.
    func createUser(_ user: UserRecord, recording events: [SecurityEvent]) async throws
    /// Gives the user with `user`'s handle its username, display name, external ID and `disabled`, when the
    /// stored user is still `previous` (compare and set, so two changes made at once cannot undo each
    /// other); false when it is not, or there is no such user. Throws ``StoreError/Code/usernameTaken`` or
    /// ``StoreError/Code/externalIdTaken``, writing nothing.
    func updateUser(_ user: UserRecord, from previous: UserRecord, recording events: [SecurityEvent]) async throws -> Bool
    /// The user with this external ID, if any.
    func user(externalId: String) async throws -> UserRecord?
    /// Users in the order of their usernames' UTF-8 bytes, those after `username` when it is given, at most `limit`.
    func users(after username: String?, limit: Int) async throws -> [UserOverview]
    /// The user's sessions live at `now`, newest first, at most `limit`.
    func sessions(ofUser handle: [UInt8], now: Date, limit: Int) async throws -> [SessionOverview]
    /// Ends every session of a user; returns how many there were.
    func deleteSessions(ofUser handle: [UInt8], recording events: [SecurityEvent]) async throws -> Int
    /// Removes a passkey of `owner`, even their last one; false when no such passkey is theirs.
    func deleteCredentialEvenIfLast(id: [UInt8], ownedBy owner: [UInt8], recording events: [SecurityEvent]) async throws
        -> Bool

    /// Stores a new admin key; throws ``StoreError/Code/nameTaken`` when the name is in use.
    func saveAdminKey(_ key: AdminKeyRecord, recording events: [SecurityEvent]) async throws
    /// Every admin key, oldest first.
    func adminKeys() async throws -> [AdminKeyRecord]
    /// Removes the admin key with this name; false when there is none.
    func deleteAdminKey(named name: String, recording events: [SecurityEvent]) async throws -> Bool
    /// The admin key with this hash, its use at `now` recorded; nil for an unknown (or revoked) key.
    func useAdminKey(hash: [UInt8], now: Date) async throws -> AdminKeyRecord?

    /// Stores a new enrollment ticket for an existing user (``StoreError/Code/userNotFound`` otherwise).
    func saveEnrollmentTicket(_ ticket: EnrollmentTicketRecord, recording events: [SecurityEvent]) async throws
    /// The ticket with this hash, in whatever state, if it is still kept.
    func enrollmentTicket(hash: [UInt8]) async throws -> EnrollmentTicketRecord?
    /// Revokes every ticket of a user that is neither spent, revoked nor expired at `now`; returns how
    /// many. When it revokes any, it writes the events `events` makes of that number in the same
    /// transaction.
    func revokeEnrollmentTickets(
        ofUser handle: [UInt8], now: Date, recording events: @escaping @Sendable (_ revoked: Int) -> [SecurityEvent]
    ) async throws -> Int

    /// Every signing key, oldest generation first.
    func signingKeys() async throws -> [SigningKeyRecord]
    /// Adds a signing key; false (writing nothing) when its generation exists already.
    func addSigningKey(_ key: SigningKeyRecord, recording events: [SecurityEvent]) async throws -> Bool
}
