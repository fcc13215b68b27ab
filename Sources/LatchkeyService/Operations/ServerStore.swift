import Foundation
import LatchkeyStore

/// The store as the server calls it: every call of the store it wraps timed
/// (`latchkey_store_duration_seconds`, by operation) when there are `metrics`, and a call the store
/// reports `busy` (it did nothing: another process holds SQLite's lock, or PostgreSQL ended a
/// deadlock by rolling it back) made again after a pause that holds no thread, until `lockWait`
/// has passed; then it is `unavailable` (a 503).
/// Otherwise it behaves exactly as the store does.
package struct ServerStore: LatchkeyStore {
    package let base: any LatchkeyStore
    package let metrics: LatchkeyMetrics?
    package let lockWait: Duration

    package init(base: any LatchkeyStore, metrics: LatchkeyMetrics?, lockWait: Duration) {
        self.base = base
        self.metrics = metrics
        self.lockWait = lockWait
    }

    /// The pauses between attempts at a busy call: short at first, then at most the last.
    package static let pauses: [Duration] = [.milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50)]

    private func call<T>(_ operation: String, _ body: () async throws -> T) async throws -> T {
        let start = ContinuousClock.now
        defer { metrics?.recordStoreCall(operation, since: start) }
        var attempt = 0
        while true {
            do {
                return try await body()
            } catch let error as StoreError where error.code == .busy {
                guard ContinuousClock.now - start < lockWait else {
                    throw StoreError(.unavailable, "\(error.message) (still busy after \(lockWait))")
                }
                try await Task.sleep(for: Self.pauses[min(attempt, Self.pauses.count - 1)])
                attempt += 1
            }
        }
    }

    package func run() async throws { try await base.run() }

    package func user(named username: String) async throws -> UserRecord? {
        try await call("user") { try await base.user(named: username) }
    }
    package func user(handle: [UInt8]) async throws -> UserRecord? {
        try await call("user") { try await base.user(handle: handle) }
    }
    package func credentials(ofUser handle: [UInt8]) async throws -> [CredentialRecord] {
        try await call("credentials") { try await base.credentials(ofUser: handle) }
    }
    package func userWithCredentials(named username: String) async throws -> (user: UserRecord, credentials: [CredentialRecord])? {
        try await call("userWithCredentials") { try await base.userWithCredentials(named: username) }
    }
    package func credential(id: [UInt8]) async throws -> CredentialRecord? {
        try await call("credential") { try await base.credential(id: id) }
    }
    package func passkeyShapes() async throws -> PasskeyShapes {
        try await call("passkeyShapes") { try await base.passkeyShapes() }
    }
    package func register(_ registration: NewRegistration) async throws {
        try await call("register") { try await base.register(registration) }
    }
    package func recordSignIn(_ signIn: CompletedSignIn) async throws -> SignInRecording {
        try await call("recordSignIn") { try await base.recordSignIn(signIn) }
    }
    package func recordSignCountRegression(credentialID: [UInt8], recording events: [SecurityEvent]) async throws {
        try await call("recordSignCountRegression") { try await base.recordSignCountRegression(credentialID: credentialID, recording: events) }
    }
    package func renameCredential(id: [UInt8], ownedBy owner: [UInt8], name: String?, recording events: [SecurityEvent]) async throws -> CredentialRecord? {
        try await call("renameCredential") { try await base.renameCredential(id: id, ownedBy: owner, name: name, recording: events) }
    }
    package func deleteCredential(id: [UInt8], ownedBy owner: [UInt8], recording events: [SecurityEvent]) async throws -> CredentialDeletion {
        try await call("deleteCredential") { try await base.deleteCredential(id: id, ownedBy: owner, recording: events) }
    }
    package func deleteUser(handle: [UInt8], recording events: [SecurityEvent]) async throws -> [[UInt8]]? {
        try await call("deleteUser") { try await base.deleteUser(handle: handle, recording: events) }
    }
    package func savePendingCeremony(_ ceremony: PendingCeremony) async throws {
        try await call("savePendingCeremony") { try await base.savePendingCeremony(ceremony) }
    }
    package func takePendingCeremony(challengeHash: [UInt8]) async throws -> PendingCeremony? {
        try await call("takePendingCeremony") { try await base.takePendingCeremony(challengeHash: challengeHash) }
    }
    package func pendingChallenges(among challengeHashes: [[UInt8]]) async throws -> Set<[UInt8]> {
        try await call("pendingChallenges") { try await base.pendingChallenges(among: challengeHashes) }
    }
    package func signInLookup(challengeHash: [UInt8], credentialID: [UInt8]) async throws -> SignInLookup {
        try await call("signInLookup") {
            try await base.signInLookup(challengeHash: challengeHash, credentialID: credentialID)
        }
    }
    package func session(tokenHash: [UInt8], now: Date) async throws -> SessionWithUser? {
        try await call("session") { try await base.session(tokenHash: tokenHash, now: now) }
    }
    package func deleteSessions(tokenHashes: [[UInt8]], recording events: [SecurityEvent]) async throws {
        try await call("deleteSessions") { try await base.deleteSessions(tokenHashes: tokenHashes, recording: events) }
    }
    package func secret(named name: String) async throws -> [UInt8] {
        try await call("secret") { try await base.secret(named: name) }
    }
    package func checkWritable(now: Date) async throws {
        try await call("checkWritable") { try await base.checkWritable(now: now) }
    }
    package func liveRecordCounts(now: Date) async throws -> LiveRecordCounts {
        try await call("liveRecordCounts") { try await base.liveRecordCounts(now: now) }
    }
    package func purgeExpired(now: Date) async throws {
        try await call("purgeExpired") { try await base.purgeExpired(now: now) }
    }

    // MARK: BackendStore

    package func createUser(_ user: UserRecord, recording events: [SecurityEvent]) async throws {
        try await call("createUser") { try await base.createUser(user, recording: events) }
    }
    package func updateUser(_ user: UserRecord, from previous: UserRecord, recording events: [SecurityEvent]) async throws -> Bool {
        try await call("updateUser") { try await base.updateUser(user, from: previous, recording: events) }
    }
    package func users(after username: String?, limit: Int) async throws -> [UserOverview] {
        try await call("users") { try await base.users(after: username, limit: limit) }
    }
    package func user(externalId: String) async throws -> UserRecord? {
        try await call("user") { try await base.user(externalId: externalId) }
    }
    package func deleteSessions(ofUser handle: [UInt8], recording events: [SecurityEvent]) async throws -> Int {
        try await call("deleteSessions") { try await base.deleteSessions(ofUser: handle, recording: events) }
    }
    package func deleteCredentialEvenIfLast(id: [UInt8], ownedBy owner: [UInt8], recording events: [SecurityEvent]) async throws -> Bool {
        try await call("deleteCredential") { try await base.deleteCredentialEvenIfLast(id: id, ownedBy: owner, recording: events) }
    }
    package func saveAdminKey(_ key: AdminKeyRecord, recording events: [SecurityEvent]) async throws {
        try await call("saveAdminKey") { try await base.saveAdminKey(key, recording: events) }
    }
    package func adminKeys() async throws -> [AdminKeyRecord] {
        try await call("adminKeys") { try await base.adminKeys() }
    }
    package func deleteAdminKey(named name: String, recording events: [SecurityEvent]) async throws -> Bool {
        try await call("deleteAdminKey") { try await base.deleteAdminKey(named: name, recording: events) }
    }
    package func useAdminKey(hash: [UInt8], now: Date) async throws -> AdminKeyRecord? {
        try await call("useAdminKey") { try await base.useAdminKey(hash: hash, now: now) }
    }
    package func saveEnrollmentTicket(_ ticket: EnrollmentTicketRecord, recording events: [SecurityEvent]) async throws {
        try await call("saveEnrollmentTicket") { try await base.saveEnrollmentTicket(ticket, recording: events) }
    }
    package func enrollmentTicket(hash: [UInt8]) async throws -> EnrollmentTicketRecord? {
        try await call("enrollmentTicket") { try await base.enrollmentTicket(hash: hash) }
    }
    package func revokeEnrollmentTickets(
        ofUser handle: [UInt8], now: Date, recording events: @escaping @Sendable (_ revoked: Int) -> [SecurityEvent]
    ) async throws -> Int {
        try await call("revokeEnrollmentTickets") {
            try await base.revokeEnrollmentTickets(ofUser: handle, now: now, recording: events)
        }
    }
    package func signingKeys() async throws -> [SigningKeyRecord] {
        try await call("signingKeys") { try await base.signingKeys() }
    }
    package func addSigningKey(_ key: SigningKeyRecord, recording events: [SecurityEvent]) async throws -> Bool {
        try await call("addSigningKey") { try await base.addSigningKey(key, recording: events) }
    }

    // MARK: DeviceKeyStore

    package func saveDeviceKey(_ key: DeviceKeyRecord, spendingTicket: (hash: [UInt8], at: Date)?, recording events: [SecurityEvent]) async throws {
        try await call("saveDeviceKey") { try await base.saveDeviceKey(key, spendingTicket: spendingTicket, recording: events) }
    }
    package func deviceKey(id: [UInt8]) async throws -> DeviceKeyRecord? {
        try await call("deviceKey") { try await base.deviceKey(id: id) }
    }
    package func deviceKeys(ofUser handle: [UInt8]) async throws -> [DeviceKeyRecord] {
        try await call("deviceKeys") { try await base.deviceKeys(ofUser: handle) }
    }
    package func renameDeviceKey(id: [UInt8], ownedBy owner: [UInt8], name: String?, recording events: [SecurityEvent]) async throws
        -> DeviceKeyRecord?
    {
        try await call("renameDeviceKey") { try await base.renameDeviceKey(id: id, ownedBy: owner, name: name, recording: events) }
    }
    package func deleteDeviceKey(id: [UInt8], ownedBy owner: [UInt8], recording events: [SecurityEvent]) async throws -> Bool {
        try await call("deleteDeviceKey") { try await base.deleteDeviceKey(id: id, ownedBy: owner, recording: events) }
    }
    package func recordDeviceKeySignIn(
        id: [UInt8], at: Date, session: SessionRecord, endingSessions: [[UInt8]], recording events: [SecurityEvent]
    ) async throws -> Bool {
        try await call("recordDeviceKeySignIn") {
            try await base.recordDeviceKeySignIn(id: id, at: at, session: session, endingSessions: endingSessions, recording: events)
        }
    }

    // MARK: AppAttestStore

    package func saveAppAttestKey(_ key: AppAttestKeyRecord) async throws {
        try await call("saveAppAttestKey") { try await base.saveAppAttestKey(key) }
    }
    package func appAttestKey(id: [UInt8]) async throws -> AppAttestKeyRecord? {
        try await call("appAttestKey") { try await base.appAttestKey(id: id) }
    }
    package func updateAppAttestCounters(
        id: [UInt8], from old: (counter: UInt32, accepted: UInt64), to new: (counter: UInt32, accepted: UInt64), at: Date
    ) async throws -> Bool {
        try await call("updateAppAttestCounters") { try await base.updateAppAttestCounters(id: id, from: old, to: new, at: at) }
    }

    // MARK: Security events

    package func recordEvent(_ event: SecurityEvent, whileItsUserExists: Bool) async throws -> Bool {
        try await call("recordEvent") { try await base.recordEvent(event, whileItsUserExists: whileItsUserExists) }
    }
    package func securityEvents(_ query: SecurityEventQuery) async throws -> [SecurityEvent] {
        try await call("securityEvents") { try await base.securityEvents(query) }
    }
    package func securityEvent(id: String) async throws -> SecurityEvent? {
        try await call("securityEvent") { try await base.securityEvent(id: id) }
    }
    package func claimWebhookDeliveries(owner: String, now: Date, leaseUntil: Date, limit: Int, receivers: WebhookReceiverSelection)
        async throws -> [(delivery: WebhookDelivery, event: SecurityEvent)]
    {
        try await call("claimWebhookDeliveries") {
            try await base.claimWebhookDeliveries(owner: owner, now: now, leaseUntil: leaseUntil, limit: limit, receivers: receivers)
        }
    }
    package func finishWebhookDelivery(id: Int64, owner: String, outcome: WebhookAttemptOutcome, now: Date) async throws -> Bool {
        try await call("finishWebhookDelivery") {
            try await base.finishWebhookDelivery(id: id, owner: owner, outcome: outcome, now: now)
        }
    }
    package func webhookDeliveries(state: WebhookDeliveryState?, before: Int64?, limit: Int) async throws -> [WebhookDelivery] {
        try await call("webhookDeliveries") { try await base.webhookDeliveries(state: state, before: before, limit: limit) }
    }
    package func retryWebhookDelivery(id: Int64, now: Date, retryUntil: Date) async throws -> WebhookDelivery? {
        try await call("retryWebhookDelivery") { try await base.retryWebhookDelivery(id: id, now: now, retryUntil: retryUntil) }
    }
    package func webhookOutboxStatus() async throws -> WebhookOutboxStatus {
        try await call("webhookOutboxStatus") { try await base.webhookOutboxStatus() }
    }
    package func renameWebhookReceiver(_ receiver: String, to name: String) async throws -> Int {
        try await call("renameWebhookReceiver") { try await base.renameWebhookReceiver(receiver, to: name) }
    }
    package func purgeSecurityEvents(eventsBefore: Date, deliveriesBefore: Date) async throws {
        try await call("purgeSecurityEvents") {
            try await base.purgeSecurityEvents(eventsBefore: eventsBefore, deliveriesBefore: deliveriesBefore)
        }
    }
}
