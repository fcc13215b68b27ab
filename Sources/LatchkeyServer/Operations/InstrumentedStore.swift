import Foundation
import LatchkeyStore

/// A store that times every call of the store it wraps (`latchkey_store_duration_seconds`, by
/// operation) and otherwise behaves exactly as it does.
struct InstrumentedStore: LatchkeyStore {
    let base: any LatchkeyStore
    let metrics: LatchkeyMetrics

    private func measured<T>(_ operation: String, _ body: () async throws -> T) async rethrows -> T {
        let start = ContinuousClock.now
        defer { metrics.recordStoreCall(operation, since: start) }
        return try await body()
    }

    func run() async throws { try await base.run() }

    func user(named username: String) async throws -> UserRecord? {
        try await measured("user") { try await base.user(named: username) }
    }
    func user(handle: [UInt8]) async throws -> UserRecord? {
        try await measured("user") { try await base.user(handle: handle) }
    }
    func credentials(ofUser handle: [UInt8]) async throws -> [CredentialRecord] {
        try await measured("credentials") { try await base.credentials(ofUser: handle) }
    }
    func userWithCredentials(named username: String) async throws -> (user: UserRecord, credentials: [CredentialRecord])? {
        try await measured("userWithCredentials") { try await base.userWithCredentials(named: username) }
    }
    func credential(id: [UInt8]) async throws -> CredentialRecord? {
        try await measured("credential") { try await base.credential(id: id) }
    }
    func register(_ registration: NewRegistration) async throws {
        try await measured("register") { try await base.register(registration) }
    }
    func recordSignIn(_ signIn: CompletedSignIn) async throws -> SignInRecording {
        try await measured("recordSignIn") { try await base.recordSignIn(signIn) }
    }
    func recordSignCountRegression(credentialID: [UInt8]) async throws {
        try await measured("recordSignCountRegression") { try await base.recordSignCountRegression(credentialID: credentialID) }
    }
    func renameCredential(id: [UInt8], ownedBy owner: [UInt8], name: String?) async throws -> CredentialRecord? {
        try await measured("renameCredential") { try await base.renameCredential(id: id, ownedBy: owner, name: name) }
    }
    func deleteCredential(id: [UInt8], ownedBy owner: [UInt8]) async throws -> CredentialDeletion {
        try await measured("deleteCredential") { try await base.deleteCredential(id: id, ownedBy: owner) }
    }
    func deleteUser(handle: [UInt8]) async throws -> [[UInt8]]? {
        try await measured("deleteUser") { try await base.deleteUser(handle: handle) }
    }
    func savePendingCeremony(_ ceremony: PendingCeremony) async throws {
        try await measured("savePendingCeremony") { try await base.savePendingCeremony(ceremony) }
    }
    func takePendingCeremony(challengeHash: [UInt8]) async throws -> PendingCeremony? {
        try await measured("takePendingCeremony") { try await base.takePendingCeremony(challengeHash: challengeHash) }
    }
    func signInLookup(challengeHash: [UInt8], credentialID: [UInt8]) async throws -> SignInLookup {
        try await measured("signInLookup") {
            try await base.signInLookup(challengeHash: challengeHash, credentialID: credentialID)
        }
    }
    func session(tokenHash: [UInt8], now: Date) async throws -> SessionWithUser? {
        try await measured("session") { try await base.session(tokenHash: tokenHash, now: now) }
    }
    func deleteSessions(tokenHashes: [[UInt8]]) async throws {
        try await measured("deleteSessions") { try await base.deleteSessions(tokenHashes: tokenHashes) }
    }
    func secret(named name: String) async throws -> [UInt8] {
        try await measured("secret") { try await base.secret(named: name) }
    }
    func checkWritable(now: Date) async throws {
        try await measured("checkWritable") { try await base.checkWritable(now: now) }
    }
    func liveRecordCounts(now: Date) async throws -> LiveRecordCounts {
        try await measured("liveRecordCounts") { try await base.liveRecordCounts(now: now) }
    }
    func purgeExpired(now: Date) async throws {
        try await measured("purgeExpired") { try await base.purgeExpired(now: now) }
    }

    // MARK: BackendStore

    func createUser(_ user: UserRecord) async throws {
        try await measured("createUser") { try await base.createUser(user) }
    }
    func user(externalId: String) async throws -> UserRecord? {
        try await measured("user") { try await base.user(externalId: externalId) }
    }
    func deleteSessions(ofUser handle: [UInt8]) async throws -> Int {
        try await measured("deleteSessions") { try await base.deleteSessions(ofUser: handle) }
    }
    func deleteCredentialEvenIfLast(id: [UInt8], ownedBy owner: [UInt8]) async throws -> Bool {
        try await measured("deleteCredential") { try await base.deleteCredentialEvenIfLast(id: id, ownedBy: owner) }
    }
    func saveAdminKey(_ key: AdminKeyRecord) async throws {
        try await measured("saveAdminKey") { try await base.saveAdminKey(key) }
    }
    func adminKeys() async throws -> [AdminKeyRecord] {
        try await measured("adminKeys") { try await base.adminKeys() }
    }
    func deleteAdminKey(named name: String) async throws -> Bool {
        try await measured("deleteAdminKey") { try await base.deleteAdminKey(named: name) }
    }
    func useAdminKey(hash: [UInt8], now: Date) async throws -> AdminKeyRecord? {
        try await measured("useAdminKey") { try await base.useAdminKey(hash: hash, now: now) }
    }
    func saveEnrollmentTicket(_ ticket: EnrollmentTicketRecord) async throws {
        try await measured("saveEnrollmentTicket") { try await base.saveEnrollmentTicket(ticket) }
    }
    func enrollmentTicket(hash: [UInt8]) async throws -> EnrollmentTicketRecord? {
        try await measured("enrollmentTicket") { try await base.enrollmentTicket(hash: hash) }
    }
    func revokeEnrollmentTickets(ofUser handle: [UInt8], now: Date) async throws -> Int {
        try await measured("revokeEnrollmentTickets") { try await base.revokeEnrollmentTickets(ofUser: handle, now: now) }
    }
    func signingKeys() async throws -> [SigningKeyRecord] {
        try await measured("signingKeys") { try await base.signingKeys() }
    }
    func addSigningKey(_ key: SigningKeyRecord) async throws -> Bool {
        try await measured("addSigningKey") { try await base.addSigningKey(key) }
    }

    // MARK: DeviceKeyStore

    func saveDeviceKey(_ key: DeviceKeyRecord, spendingTicket: (hash: [UInt8], at: Date)?) async throws {
        try await measured("saveDeviceKey") { try await base.saveDeviceKey(key, spendingTicket: spendingTicket) }
    }
    func deviceKey(id: [UInt8]) async throws -> DeviceKeyRecord? {
        try await measured("deviceKey") { try await base.deviceKey(id: id) }
    }
    func deviceKeys(ofUser handle: [UInt8]) async throws -> [DeviceKeyRecord] {
        try await measured("deviceKeys") { try await base.deviceKeys(ofUser: handle) }
    }
    func renameDeviceKey(id: [UInt8], ownedBy owner: [UInt8], name: String?) async throws -> DeviceKeyRecord? {
        try await measured("renameDeviceKey") { try await base.renameDeviceKey(id: id, ownedBy: owner, name: name) }
    }
    func deleteDeviceKey(id: [UInt8], ownedBy owner: [UInt8]) async throws -> Bool {
        try await measured("deleteDeviceKey") { try await base.deleteDeviceKey(id: id, ownedBy: owner) }
    }
    func recordDeviceKeySignIn(id: [UInt8], at: Date, session: SessionRecord) async throws -> Bool {
        try await measured("recordDeviceKeySignIn") { try await base.recordDeviceKeySignIn(id: id, at: at, session: session) }
    }

    // MARK: AppAttestStore

    func saveAppAttestKey(_ key: AppAttestKeyRecord) async throws {
        try await measured("saveAppAttestKey") { try await base.saveAppAttestKey(key) }
    }
    func appAttestKey(id: [UInt8]) async throws -> AppAttestKeyRecord? {
        try await measured("appAttestKey") { try await base.appAttestKey(id: id) }
    }
    func advanceAppAttestCounter(id: [UInt8], to counter: UInt32, at: Date) async throws -> Bool {
        try await measured("advanceAppAttestCounter") { try await base.advanceAppAttestCounter(id: id, to: counter, at: at) }
    }
}
