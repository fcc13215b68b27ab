import Foundation
import ServiceLifecycle

/// Everything Latchkey keeps: users, credentials, pending challenges and sessions. Each method is
/// one atomic step, so a failure never leaves a half-written record; the ceremony methods do in one
/// transaction what a ceremony needs, so a sign-in costs two round trips to the store.
///
/// A method that takes `events` (``SecurityEvent``) writes them, and a webhook delivery of each,
/// in the transaction of its change and only when the change is made: no change without its event,
/// no event without its change.
///
/// A store is a `Service`: the backend is opened when it is made (so a bad database stops the
/// server before it listens), `run()` waits for graceful shutdown and then closes it.
///
/// A backend applies its ``StoreCallPolicy`` where every call enters the database, once per call
/// (the operation timed is the method's name): a new method is written here and in each backend.
public protocol LatchkeyStore: Service, BackendStore, DeviceKeyStore, AppAttestStore, SecurityEventStore, TenantStore,
    StatisticsStore, OpenIDStore, UserContactStore, UserGroupStore, AccountImportStore
{
    // MARK: Users and credentials

    /// The user with this exact username, if any.
    func user(named username: String) async throws -> UserRecord?
    /// The user with this user handle, if any.
    func user(handle: [UInt8]) async throws -> UserRecord?
    /// Every passkey of one user, oldest first.
    func credentials(ofUser handle: [UInt8]) async throws -> [CredentialRecord]
    /// The user with this exact username and every passkey of theirs, oldest first, in one read
    /// (what sign-in options with a username need); nil when there is no such user.
    func userWithCredentials(named username: String) async throws -> (user: UserRecord, credentials: [CredentialRecord])?
    /// The passkey with this credential ID, whoever owns it.
    func credential(id: [UInt8]) async throws -> CredentialRecord?
    /// How the registered passkeys look in aggregate, for decoys: counted over a sample of at most
    /// ``PasskeyShapes/sampledUsers`` users (every user of a smaller tenant), so the read does not grow with the store.
    func passkeyShapes() async throws -> PasskeyShapes

    /// Stores a verified credential and its `events`, in one transaction. With a `challengeHash`, it first
    /// consumes that pending ceremony; when it is gone (another answer took it), it writes nothing and throws
    /// ``StoreError/Code/challengeSpent``, so a challenge registers at most once. It creates `newUser` first when given
    /// (throws ``StoreError/Code/usernameTaken`` if the username exists by then), refuses a
    /// credential ID already registered (``StoreError/Code/credentialAlreadyRegistered``) or a
    /// missing owner (``StoreError/Code/userNotFound``), and starts `session` when given, ending the
    /// sessions whose token hashes are in `endingSessions`. A `newUser` or `session` whose user
    /// handle is not the credential's `userHandle` is refused with ``StoreError/Code/userNotFound``.
    /// With `spendingTicket`, the ticket is marked used in the same transaction; when it is for
    /// another user, used, revoked, expired or gone by then, ``StoreError/Code/ticketNotUsable`` is
    /// thrown and nothing is written.
    func register(_ registration: NewRegistration) async throws

    /// Records a successful sign-in, in one transaction. First it consumes the pending ceremony of
    /// `challengeHash`; when that is gone (another answer took it), it writes nothing and returns
    /// ``SignInRecording/challengeSpent``, so a challenge signs in at most once. Then, only if the
    /// stored counter is still `previousSignCount`: the new counter, backup state, UV and time, the
    /// new session, and the end of the sessions it replaces. When another sign-in moved the counter
    /// first (so two racing assertions cannot both pass the counter check) or the credential is
    /// gone, only the ceremony is consumed, and the reply says why. A `session` for another user
    /// than the credential's owner is refused with ``StoreError/Code/userNotFound``, writing nothing.
    func recordSignIn(_ signIn: CompletedSignIn) async throws -> SignInRecording

    /// Marks a credential whose counter went backwards: a possible cloned authenticator.
    func recordSignCountRegression(credentialID: [UInt8], recording events: [SecurityEvent]) async throws

    // MARK: Passkey management

    /// Names a passkey of `owner` (nil: back to the authenticator's name). Returns the renamed
    /// credential, or nil when no credential with this ID belongs to `owner`.
    func renameCredential(id: [UInt8], ownedBy owner: [UInt8], name: String?, recording events: [SecurityEvent]) async throws
        -> CredentialRecord?
    /// Removes a passkey of `owner`, in one transaction, unless it is their only one.
    func deleteCredential(id: [UInt8], ownedBy owner: [UInt8], recording events: [SecurityEvent]) async throws
        -> CredentialDeletion
    /// Removes a user with every passkey, session and pending ceremony of theirs, in one
    /// transaction, and returns the IDs of the removed passkeys; nil when there is no such user.
    func deleteUser(handle: [UInt8], recording events: [SecurityEvent]) async throws -> [[UInt8]]?

    // MARK: Ceremonies

    /// Stores an issued challenge until it is answered or expires.
    func savePendingCeremony(_ ceremony: PendingCeremony) async throws
    /// Removes and returns the pending ceremony for this challenge hash, so each challenge is
    /// answered at most once even when two requests race. Returns expired ones too, for a clear error.
    func takePendingCeremony(challengeHash: [UInt8]) async throws -> PendingCeremony?
    /// The start of a sign-in result in one round trip: reads the pending ceremony (without
    /// consuming it: ``recordSignIn(_:)`` does, or the caller with ``takePendingCeremony(challengeHash:)``
    /// when the sign-in fails) and the credential with its owner.
    func signInLookup(challengeHash: [UInt8], credentialID: [UInt8]) async throws -> SignInLookup
    /// The start of a registration result in one round trip: reads the pending ceremony (without
    /// consuming it: ``register(_:)`` does, or the caller with ``takePendingCeremony(challengeHash:)``
    /// when the registration fails), the user its user handle names, and whether that handle has a history.
    func registrationLookup(challengeHash: [UInt8]) async throws -> RegistrationLookup
    /// Which of these challenge hashes still have a pending ceremony (not yet taken, expired or not):
    /// what an instance asks about the challenges it issued that another may have answered.
    func pendingChallenges(among challengeHashes: [[UInt8]]) async throws -> Set<[UInt8]>

    // MARK: Sessions

    /// The live session for this token hash at `now`, with its user, if both exist.
    func session(tokenHash: [UInt8], now: Date) async throws -> SessionWithUser?
    /// Ends sessions; unknown hashes are ignored.
    func deleteSessions(tokenHashes: [[UInt8]], recording events: [SecurityEvent]) async throws

    // MARK: Secrets

    /// A random 32-byte secret kept under `name`, made on first use and the same afterwards for
    /// every process sharing the store (for example the key that derives decoy credentials for
    /// unknown usernames). Two processes asking at once get the same secret.
    func secret(named name: String) async throws -> [UInt8]

    // MARK: Operations

    /// Returns when the backend takes a tiny write (one row of `store_health`, in its own
    /// transaction), throws when it cannot (``StoreError/Code/unavailable`` or
    /// ``StoreError/Code/full`` for faults that may pass): readiness checks.
    func checkWritable(now: Date) async throws
    /// How many challenges are pending and sessions live at `now`, for metrics.
    func liveRecordCounts(now: Date) async throws -> LiveRecordCounts

    /// Deletes expired challenges and sessions, and enrollment tickets a day after they expired, in
    /// small batches so no lock is held for long.
    func purgeExpired(now: Date) async throws

    // MARK: Calls

    /// The same store (its database, connections and outbox shared) making every call under
    /// `policy`: retried while busy, timed, or both.
    func applying(_ policy: StoreCallPolicy) -> any LatchkeyStore

    /// Whose records every call reads and writes: ``TenantID/default`` unless ``scoped(to:)`` chose another.
    var tenant: TenantID { get }

    /// The same store (its database, connections and policy shared) reading and writing only `tenant`'s records,
    /// and writing a delivery of each of its events for every receiver of `webhooks` (the tenant's own). Purges,
    /// the health check and the live record counts span every tenant.
    func scoped(to tenant: TenantID, webhooks: WebhookOutbox) -> any LatchkeyStore
}

extension LatchkeyStore {
    /// ``scoped(to:webhooks:)`` without webhook receivers.
    public func scoped(to tenant: TenantID) -> any LatchkeyStore { scoped(to: tenant, webhooks: .none) }
}

/// The mutating methods without events, for tools and tests that record none.
extension LatchkeyStore {
    public func recordSignCountRegression(credentialID: [UInt8]) async throws {
        try await recordSignCountRegression(credentialID: credentialID, recording: [])
    }
    public func renameCredential(id: [UInt8], ownedBy owner: [UInt8], name: String?) async throws -> CredentialRecord? {
        try await renameCredential(id: id, ownedBy: owner, name: name, recording: [])
    }
    public func deleteCredential(id: [UInt8], ownedBy owner: [UInt8]) async throws -> CredentialDeletion {
        try await deleteCredential(id: id, ownedBy: owner, recording: [])
    }
    public func deleteUser(handle: [UInt8]) async throws -> [[UInt8]]? { try await deleteUser(handle: handle, recording: []) }
    public func deleteSessions(tokenHashes: [[UInt8]]) async throws { try await deleteSessions(tokenHashes: tokenHashes, recording: []) }
}

/// The backend's mutating methods without events, for tools and tests that record none.
extension BackendStore {
    public func createUser(_ user: UserRecord) async throws { try await createUser(user, recording: []) }
    public func deleteSessions(ofUser handle: [UInt8]) async throws -> Int { try await deleteSessions(ofUser: handle, recording: []) }
    public func deleteCredentialEvenIfLast(id: [UInt8], ownedBy owner: [UInt8]) async throws -> Bool {
        try await deleteCredentialEvenIfLast(id: id, ownedBy: owner, recording: [])
    }
    public func saveAdminKey(_ key: AdminKeyRecord) async throws { try await saveAdminKey(key, recording: []) }
    public func deleteAdminKey(named name: String) async throws -> Bool { try await deleteAdminKey(named: name, recording: []) }
    public func saveEnrollmentTicket(_ ticket: EnrollmentTicketRecord) async throws {
        try await saveEnrollmentTicket(ticket, recording: [])
    }
    public func revokeEnrollmentTickets(ofUser handle: [UInt8], now: Date) async throws -> Int {
        try await revokeEnrollmentTickets(ofUser: handle, now: now) { _ in [] }
    }
    public func addSigningKey(_ key: SigningKeyRecord) async throws -> Bool { try await addSigningKey(key, recording: []) }
}

/// The device-key methods without events, for tests that record none.
extension DeviceKeyStore {
    public func saveDeviceKey(_ key: DeviceKeyRecord, spendingTicket: (hash: [UInt8], at: Date)?) async throws {
        try await saveDeviceKey(key, spendingTicket: spendingTicket, recording: [])
    }
    public func renameDeviceKey(id: [UInt8], ownedBy owner: [UInt8], name: String?) async throws -> DeviceKeyRecord? {
        try await renameDeviceKey(id: id, ownedBy: owner, name: name, recording: [])
    }
    public func deleteDeviceKey(id: [UInt8], ownedBy owner: [UInt8]) async throws -> Bool {
        try await deleteDeviceKey(id: id, ownedBy: owner, recording: [])
    }
    public func recordDeviceKeySignIn(id: [UInt8], at: Date, session: SessionRecord, endingSessions: [[UInt8]] = []) async throws -> Bool {
        try await recordDeviceKeySignIn(id: id, at: at, session: session, endingSessions: endingSessions, recording: [])
    }
}
