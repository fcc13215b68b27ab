import Foundation

/// Everything Latchkey keeps: users, credentials, pending challenges and sessions. Each method is
/// one atomic step, so a failure never leaves a half-written record.
public protocol LatchkeyStore: Sendable {
    /// The user with this exact username, if any.
    func user(named username: String) async throws -> UserRecord?
    /// The user with this user handle, if any.
    func user(handle: [UInt8]) async throws -> UserRecord?
    /// Every passkey of one user, oldest first.
    func credentials(ofUser handle: [UInt8]) async throws -> [CredentialRecord]
    /// The passkey with this credential ID, whoever owns it.
    func credential(id: [UInt8]) async throws -> CredentialRecord?

    /// Stores a verified credential. When `newUser` is given, creates that user in the same
    /// transaction; throws ``StoreError/Code/usernameTaken`` if the username exists by then.
    func register(_ credential: CredentialRecord, newUser: UserRecord?) async throws

    /// Records a successful sign-in: the new counter, the current backup state and the time, only if
    /// the stored counter is still `previousSignCount`. Returns false when another sign-in changed it
    /// first, so two racing assertions cannot both pass the counter check.
    func recordSignIn(credentialID: [UInt8], previousSignCount: UInt32, signCount: UInt32, backedUp: Bool, at date: Date) async throws -> Bool

    /// Marks a credential whose counter went backwards: a possible cloned authenticator.
    func recordSignCountRegression(credentialID: [UInt8]) async throws

    /// Stores an issued challenge until it is answered or expires.
    func savePendingCeremony(_ ceremony: PendingCeremony) async throws
    /// Removes and returns the pending ceremony for this challenge hash, so each challenge is
    /// answered at most once even when two requests race. Returns expired ones too, for a clear error.
    func takePendingCeremony(challengeHash: [UInt8]) async throws -> PendingCeremony?

    /// Stores a new session (by the hash of its token).
    func createSession(_ session: SessionRecord) async throws
    /// The session for this token hash, if it exists and has not expired at `now`.
    func session(tokenHash: [UInt8], now: Date) async throws -> SessionRecord?
    /// Ends a session; unknown hashes are ignored.
    func deleteSession(tokenHash: [UInt8]) async throws

    /// Deletes expired challenges and sessions.
    func purgeExpired(now: Date) async throws
}
