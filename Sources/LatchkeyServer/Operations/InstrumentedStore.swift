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
    func recordSignCountRegression(credentialID: [UInt8], recording events: [SecurityEvent]) async throws {
        try await measured("recordSignCountRegression") { try await base.recordSignCountRegression(credentialID: credentialID, recording: events) }
    }
    func renameCredential(id: [UInt8], ownedBy owner: [UInt8], name: String?, recording events: [SecurityEvent]) async throws -> CredentialRecord? {
        try await measured("renameCredential") { try await base.renameCredential(id: id, ownedBy: owner, name: name, recording: events) }
    }
    func deleteCredential(id: [UInt8], ownedBy owner: [UInt8], recording events: [SecurityEvent]) async throws -> CredentialDeletion {
        try await measured("deleteCredential") { try await base.deleteCredential(id: id, ownedBy: owner, recording: events) }
    }
    func deleteUser(handle: [UInt8], recording events: [SecurityEvent]) async throws -> [[UInt8]]? {
        try await measured("deleteUser") { try await base.deleteUser(handle: handle, recording: events) }
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
    func deleteSessions(tokenHashes: [[UInt8]], recording events: [SecurityEvent]) async throws {
        try await measured("deleteSessions") { try await base.deleteSessions(tokenHashes: tokenHashes, recording: events) }
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

    func createUser(_ user: UserRecord, recording events: [SecurityEvent]) async throws {
        try await measured("createUser") { try await base.createUser(user, recording: events) }
    }
    func updateUser(_ user: UserRecord, from previous: UserRecord, recording events: [SecurityEvent]) async throws -> Bool {
        try await measured("updateUser") { try await base.updateUser(user, from: previous, recording: events) }
    }
    func users(after username: String?, limit: Int) async throws -> [UserOverview] {
        try await measured("users") { try await base.users(after: username, limit: limit) }
    }
    func user(externalId: String) async throws -> UserRecord? {
        try await measured("user") { try await base.user(externalId: externalId) }
    }
    func deleteSessions(ofUser handle: [UInt8], recording events: [SecurityEvent]) async throws -> Int {
        try await measured("deleteSessions") { try await base.deleteSessions(ofUser: handle, recording: events) }
    }
    func deleteCredentialEvenIfLast(id: [UInt8], ownedBy owner: [UInt8], recording events: [SecurityEvent]) async throws -> Bool {
        try await measured("deleteCredential") { try await base.deleteCredentialEvenIfLast(id: id, ownedBy: owner, recording: events) }
    }
    func saveAdminKey(_ key: AdminKeyRecord, recording events: [SecurityEvent]) async throws {
        try await measured("saveAdminKey") { try await base.saveAdminKey(key, recording: events) }
    }
    func adminKeys() async throws -> [AdminKeyRecord] {
        try await measured("adminKeys") { try await base.adminKeys() }
    }
    func deleteAdminKey(named name: String, recording events: [SecurityEvent]) async throws -> Bool {
        try await measured("deleteAdminKey") { try await base.deleteAdminKey(named: name, recording: events) }
    }
    func useAdminKey(hash: [UInt8], now: Date) async throws -> AdminKeyRecord? {
        try await measured("useAdminKey") { try await base.useAdminKey(hash: hash, now: now) }
    }
    func saveEnrollmentTicket(_ ticket: EnrollmentTicketRecord, recording events: [SecurityEvent]) async throws {
        try await measured("saveEnrollmentTicket") { try await base.saveEnrollmentTicket(ticket, recording: events) }
    }
    func enrollmentTicket(hash: [UInt8]) async throws -> EnrollmentTicketRecord? {
        try await measured("enrollmentTicket") { try await base.enrollmentTicket(hash: hash) }
    }
    func revokeEnrollmentTickets(
        ofUser handle: [UInt8], now: Date, recording events: @escaping @Sendable (_ revoked: Int) -> [SecurityEvent]
    ) async throws -> Int {
        try await measured("revokeEnrollmentTickets") {
            try await base.revokeEnrollmentTickets(ofUser: handle, now: now, recording: events)
        }
    }
    func signingKeys() async throws -> [SigningKeyRecord] {
        try await measured("signingKeys") { try await base.signingKeys() }
    }
    func addSigningKey(_ key: SigningKeyRecord, recording events: [SecurityEvent]) async throws -> Bool {
        try await measured("addSigningKey") { try await base.addSigningKey(key, recording: events) }
    }

    // MARK: DeviceKeyStore

    func saveDeviceKey(_ key: DeviceKeyRecord, spendingTicket: (hash: [UInt8], at: Date)?, recording events: [SecurityEvent]) async throws {
        try await measured("saveDeviceKey") { try await base.saveDeviceKey(key, spendingTicket: spendingTicket, recording: events) }
    }
    func deviceKey(id: [UInt8]) async throws -> DeviceKeyRecord? {
        try await measured("deviceKey") { try await base.deviceKey(id: id) }
    }
    func deviceKeys(ofUser handle: [UInt8]) async throws -> [DeviceKeyRecord] {
        try await measured("deviceKeys") { try await base.deviceKeys(ofUser: handle) }
    }
    func renameDeviceKey(id: [UInt8], ownedBy owner: [UInt8], name: String?, recording events: [SecurityEvent]) async throws
        -> DeviceKeyRecord?
    {
        try await measured("renameDeviceKey") { try await base.renameDeviceKey(id: id, ownedBy: owner, name: name, recording: events) }
    }
    func deleteDeviceKey(id: [UInt8], ownedBy owner: [UInt8], recording events: [SecurityEvent]) async throws -> Bool {
        try await measured("deleteDeviceKey") { try await base.deleteDeviceKey(id: id, ownedBy: owner, recording: events) }
    }
    func recordDeviceKeySignIn(
        id: [UInt8], at: Date, session: SessionRecord, endingSessions: [[UInt8]], recording events: [SecurityEvent]
    ) async throws -> Bool {
        try await measured("recordDeviceKeySignIn") {
            try await base.recordDeviceKeySignIn(id: id, at: at, session: session, endingSessions: endingSessions, recording: events)
        }
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

    // MARK: Security events

    func recordEvent(_ event: SecurityEvent) async throws {
        try await measured("recordEvent") { try await base.recordEvent(event) }
    }
    func securityEvents(_ query: SecurityEventQuery) async throws -> [SecurityEvent] {
        try await measured("securityEvents") { try await base.securityEvents(query) }
    }
    func securityEvent(id: String) async throws -> SecurityEvent? {
        try await measured("securityEvent") { try await base.securityEvent(id: id) }
    }
    func claimWebhookDeliveries(owner: String, now: Date, leaseUntil: Date, limit: Int, receivers: WebhookReceiverSelection)
        async throws -> [(delivery: WebhookDelivery, event: SecurityEvent)]
    {
        try await measured("claimWebhookDeliveries") {
            try await base.claimWebhookDeliveries(owner: owner, now: now, leaseUntil: leaseUntil, limit: limit, receivers: receivers)
        }
    }
    func finishWebhookDelivery(id: Int64, owner: String, outcome: WebhookAttemptOutcome, now: Date) async throws -> Bool {
        try await measured("finishWebhookDelivery") {
            try await base.finishWebhookDelivery(id: id, owner: owner, outcome: outcome, now: now)
        }
    }
    func webhookDeliveries(state: WebhookDeliveryState?, before: Int64?, limit: Int) async throws -> [WebhookDelivery] {
        try await measured("webhookDeliveries") { try await base.webhookDeliveries(state: state, before: before, limit: limit) }
    }
    func retryWebhookDelivery(id: Int64, now: Date, retryUntil: Date) async throws -> WebhookDelivery? {
        try await measured("retryWebhookDelivery") { try await base.retryWebhookDelivery(id: id, now: now, retryUntil: retryUntil) }
    }
    func webhookOutboxStatus() async throws -> WebhookOutboxStatus {
        try await measured("webhookOutboxStatus") { try await base.webhookOutboxStatus() }
    }
    func renameWebhookReceiver(_ receiver: String, to name: String) async throws -> Int {
        try await measured("renameWebhookReceiver") { try await base.renameWebhookReceiver(receiver, to: name) }
    }
    func purgeSecurityEvents(eventsBefore: Date, deliveriesBefore: Date) async throws {
        try await measured("purgeSecurityEvents") {
            try await base.purgeSecurityEvents(eventsBefore: eventsBefore, deliveriesBefore: deliveriesBefore)
        }
    }
}
