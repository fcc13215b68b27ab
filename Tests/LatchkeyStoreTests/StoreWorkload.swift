import Foundation
import LatchkeyStore
import Synchronization
import Testing
import WebAuthn

/// Every call of the store contract, made on a store of several tenants with rows in every table: what the
/// planner tests run so that every statement a store sends is sent (and, by the backend's log, seen).
/// ``calledOperations`` names each store call made, which ``StoreRequirements`` compares with the contract.
final class StoreWorkload: Sendable {
    /// The tenants the workload fills, besides the default one.
    static let tenants = ["shop", "bank"].compactMap(TenantID.init)
    static let receiver = "https://hooks.example/latchkey"

    /// The `#function` of every store call made, as the store's call policy is told of it.
    private let called = Mutex<Set<String>>([])

    var calledOperations: Set<String> { called.withLock { $0 } }

    /// Users seeded in each tenant.
    private let seededUsers = Mutex(0)

    /// Fills `store` with `users` users in the default tenant and a fortieth as many in each other, each with a passkey,
    /// a session, a device key, an enrollment ticket and events with their webhook deliveries: enough rows that a plan
    /// reading a whole table or tenant is a choice, not the only way, and tenants of different sizes, as a store's are
    /// (the calls are made in a small one, where reading another tenant's rows would cost the most).
    func seed(_ store: any LatchkeyStore, users: Int) async throws {
        let small = max(users / 40, 2)
        seededUsers.withLock { $0 = users }
        for tenant in Self.tenants {
            try await store.createTenant(
                TenantRecord(id: tenant, hosts: ["\(tenant.rawValue).example"], settings: Array("{}".utf8), createdAt: Fixtures.now,
                             updatedAt: Fixtures.now), recording: [])
        }
        // Handles and IDs are unique across tenants: each tenant's users are numbered on from the last's.
        var first = 0
        for tenant in [TenantID.default] + Self.tenants {
            let scoped = store.scoped(to: tenant, webhooks: WebhookOutbox(receivers: [Self.receiver]))
            let count = tenant == .default ? users : small
            try await scoped.saveOAuthClient(Self.oauthClient, recording: [])
            for index in first..<first + count { try await fill(scoped, index: index) }
            first += count
            // Most deliveries were delivered long ago, as in a store that runs: the last few are pending.
            while true {
                let claimed = try await scoped.claimWebhookDeliveries(
                    owner: "seed", now: Fixtures.now.addingTimeInterval(1), leaseUntil: Fixtures.now.addingTimeInterval(60), limit: 100,
                    receivers: .all)
                guard claimed.count > 2 else { break }
                for (delivery, _) in claimed.dropLast(2) {
                    _ = try await scoped.finishWebhookDelivery(id: delivery.id, owner: "seed", outcome: .delivered, now: Fixtures.now)
                }
            }
        }
    }

    /// One user of a tenant with one row of each kind.
    private func fill(_ store: any LatchkeyStore, index: Int) async throws {
        let user = Self.user(index)
        let credential = Fixtures.credential(Self.bytes(index, tag: 1, count: 16), of: user)
        let session = Fixtures.session(Self.bytes(index, tag: 2, count: 32), of: user)
        try await store.register(NewRegistration(
            credential: credential, newUser: user, session: session,
            events: [Self.event(.userCreated, index, user: user), Self.event(.passkeyRegistered, index, user: user)],
            contact: UserContact(kind: .email, value: "user\(index)@example.com")))
        try await store.savePendingCeremony(Fixtures.registration(0, for: user).with(challenge: Self.bytes(index, tag: 3, count: 32)))
        try await store.saveEnrollmentTicket(EnrollmentTicketRecord(
            hash: Self.bytes(index, tag: 4, count: 32), userHandle: user.handle, createdAt: Fixtures.now,
            expiresAt: Fixtures.now.addingTimeInterval(600)), recording: [Self.event(.enrollmentTicketIssued, index, user: user)])
        try await store.saveDeviceKey(Fixtures.deviceKey(0, of: user).with(id: Self.bytes(index, tag: 5, count: 32)), spendingTicket: nil, recording: [])
        try await store.saveAppAttestKey(AppAttestKeyRecord(
            keyID: Self.bytes(index, tag: 6, count: 32), publicKey: [4] + Fixtures.bytes(2, count: 64), appID: "ABCDE12345.com.example.app",
            environment: "production", receipt: [1, 2, 3], createdAt: Fixtures.now))
        try await store.saveOAuthGrant(Self.grant(Self.bytes(index, tag: 7, count: 16), of: user), recording: [])
        try await store.saveOAuthConsent(ofUser: user.handle, client: Self.oauthClient.clientID, scopes: ["openid"], at: Fixtures.now)
        try await store.saveOAuthDeviceAuthorization(Self.deviceAuthorization(Self.bytes(index, tag: 8, count: 16), userCode: Self.bytes(index, tag: 9, count: 32)))
        _ = try await store.setGroups(["group\(index % 7)"], ofUser: user.handle, recording: [])
    }

    /// The client every tenant has, whose grants each user has one of.
    static let oauthClient = OAuthClientRecord(
        clientID: "planner-client", name: "Planner", secretHash: Fixtures.bytes(0xC1), redirectURIs: ["https://app.example/cb"],
        postLogoutRedirectURIs: [], scopes: ["openid", "offline_access"], consent: false, accessTokenLifetime: 600,
        refreshTokenLifetime: 86_400, createdAt: Fixtures.now, updatedAt: Fixtures.now)

    static func grant(_ id: [UInt8], of user: UserRecord) -> OAuthGrantRecord {
        OAuthGrantRecord(
            id: id, clientID: oauthClient.clientID, userHandle: user.handle, scopes: ["openid"], redirectURI: "https://app.example/cb",
            nonce: "n", codeChallenge: nil, authTime: Fixtures.now, methods: ["hwk"], codeHash: Fixtures.bytes(0xC2),
            codeExpiresAt: Fixtures.now.addingTimeInterval(60), createdAt: Fixtures.now, expiresAt: Fixtures.now.addingTimeInterval(60))
    }

    static func deviceAuthorization(_ id: [UInt8], userCode: [UInt8]) -> OAuthDeviceAuthorizationRecord {
        OAuthDeviceAuthorizationRecord(
            grantID: id, deviceCodeHash: Fixtures.bytes(0xC4), userCodeHash: userCode, clientID: oauthClient.clientID, scopes: ["openid"],
            createdAt: Fixtures.now, expiresAt: Fixtures.now.addingTimeInterval(600), interval: 5)
    }

    /// Makes every call of the contract once or more, through a store that notes each call's name.
    func run(on plain: any LatchkeyStore) async throws {
        let store = plain.applying(StoreCallPolicy(timing: { [self] function, _ in called.withLock { _ = $0.insert(function) } }))
            .scoped(to: Self.tenants[0], webhooks: WebhookOutbox(receivers: [Self.receiver]))
        // A user the calls read: the second of the tenant they are made in, numbered after the default's users.
        let knownIndex = seededUsers.withLock { $0 } + 1
        let known = Self.user(knownIndex), fresh = UserRecord(
            handle: Fixtures.bytes(0xEE, count: 64), username: "newcomer", displayName: "Newcomer", createdAt: Fixtures.now)
        let knownCredential = Self.bytes(knownIndex, tag: 1, count: 16), knownSession = Self.bytes(knownIndex, tag: 2, count: 32)
        let now = Fixtures.now

        // Users and credentials.
        _ = try await store.user(named: known.username)
        _ = try await store.user(handle: known.handle)
        _ = try await store.credentials(ofUser: known.handle)
        _ = try await store.userWithCredentials(named: known.username)
        _ = try await store.credential(id: knownCredential)
        _ = try await store.contact(ofUser: known.handle)
        _ = try await store.groups(ofUser: known.handle)
        _ = try await store.setGroups(["staff", "team:ops"], ofUser: known.handle, recording: [Self.event(.userUpdated, 9_009, user: known)])
        _ = try await store.setContact(UserContact(kind: .phone, value: "+4915112345678"), ofUser: known.handle, recording: [])
        // An account moved in, then the same again (unchanged), then one that clashes with it.
        let movedIn = UserRecord(handle: Fixtures.bytes(0xE1, count: 64), username: "moved-in", displayName: "Moved In", createdAt: now)
        let imported = ImportedAccount(
            user: movedIn, credentials: [Fixtures.credential(Fixtures.bytes(0xE2, count: 16), of: movedIn)],
            contact: UserContact(kind: .email, value: "moved@example.com"), groups: ["staff"])
        var importEvent = Self.event(.accountImported, 9_010, user: movedIn)
        importEvent.detail = EventStatistics.importedDetail(passkeys: 1)
        _ = try await store.importAccount(imported, recording: [importEvent])
        _ = try await store.importAccount(imported, recording: [])
        var clash = imported
        clash.user.handle = Fixtures.bytes(0xE3, count: 64)
        _ = try await store.importAccount(clash, recording: [])
        _ = try await store.passkeyShapes()

        // A registration: its ceremony, the lookup, the write.
        let challenge = Fixtures.bytes(0xE1)
        try await store.savePendingCeremony(Fixtures.registration(0, for: fresh).with(challenge: challenge))
        _ = try await store.registrationLookup(challengeHash: challenge)
        _ = try await store.pendingChallenges(among: [challenge, Fixtures.bytes(0xE2)])
        let freshCredential = Fixtures.credential(Fixtures.bytes(0xE3, count: 16), of: fresh)
        try await store.register(NewRegistration(
            credential: freshCredential, newUser: fresh, session: Fixtures.session(Fixtures.bytes(0xE4), of: fresh),
            events: [Self.event(.passkeyRegistered, 9_000, user: fresh)], contact: UserContact(kind: .email, value: "new@example.com"))
            .consuming(challenge))

        // A sign-in: its ceremony, the lookup, the write; a counter that went back.
        let signIn = Fixtures.signIn(freshCredential, from: 0, to: 1, session: Fixtures.session(Fixtures.bytes(0xE5), of: fresh))
        try await store.savePendingCeremony(Fixtures.signInCeremony(signIn.challengeHash))
        _ = try await store.signInLookup(challengeHash: signIn.challengeHash, credentialID: freshCredential.id)
        _ = try await store.recordSignIn(signIn.recording([Self.event(.signInSucceeded, 9_001, user: fresh)]))
        try await store.recordSignCountRegression(credentialID: freshCredential.id, recording: [Self.event(.signInRefused, 9_002, user: fresh)])
        try await store.savePendingCeremony(Fixtures.signInCeremony(Fixtures.bytes(0xE6)))
        _ = try await store.takePendingCeremony(challengeHash: Fixtures.bytes(0xE6))

        // Sessions.
        _ = try await store.session(tokenHash: knownSession, now: now)
        _ = try await store.sessions(ofUser: known.handle, now: now, limit: 20)
        try await store.deleteSessions(tokenHashes: [Fixtures.bytes(0xE5)], recording: [Self.event(.sessionEnded, 9_003, user: fresh)])
        _ = try await store.deleteSessions(ofUser: fresh.handle, recording: [])

        // Managing passkeys and users.
        try await store.register(NewRegistration(credential: Fixtures.credential(Fixtures.bytes(0xE7, count: 16), of: fresh), newUser: nil))
        _ = try await store.renameCredential(id: freshCredential.id, ownedBy: fresh.handle, name: "Phone", recording: [])
        _ = try await store.deleteCredential(id: Fixtures.bytes(0xE7, count: 16), ownedBy: fresh.handle, recording: [])
        try await store.deleteCredentialEvenIfLast(id: freshCredential.id, ownedBy: fresh.handle, recording: [])
        var renamed = fresh
        renamed.displayName = "Renamed"
        _ = try await store.updateUser(renamed, from: fresh, recording: [Self.event(.userUpdated, 9_004, user: fresh)])
        _ = try await store.user(externalId: "crm-1")
        _ = try await store.users(after: nil, limit: 50)
        _ = try await store.users(after: known.username, limit: 50)
        let made = UserRecord(handle: Fixtures.bytes(0xE8, count: 64), username: "made-ahead", displayName: "Made", createdAt: now)
        try await store.createUser(made, recording: [Self.event(.userCreated, 9_005, user: made)])
        _ = try await store.deleteUser(handle: made.handle, recording: [Self.event(.accountDeleted, 9_006, user: made)])
        _ = try await store.recordEvent(Self.event(.signInRefused, 9_007, user: known), whileItsUserExists: true)
        _ = try await store.recordEvent(Self.event(.signInRefused, 9_008, user: nil), whileItsUserExists: false)

        // Admin keys, enrollment tickets, signing keys, secrets.
        try await store.saveAdminKey(AdminKeyRecord(name: "planner", keyHash: Fixtures.bytes(0xE9), createdAt: now), recording: [])
        _ = try await store.adminKeys()
        _ = try await store.useAdminKey(hash: Fixtures.bytes(0xE9), now: now)
        _ = try await store.deleteAdminKey(named: "planner", recording: [])
        try await store.saveEnrollmentTicket(EnrollmentTicketRecord(
            hash: Fixtures.bytes(0xEB), userHandle: known.handle, createdAt: now, expiresAt: now.addingTimeInterval(600)), recording: [])
        _ = try await store.enrollmentTicket(hash: Self.bytes(knownIndex, tag: 4, count: 32))
        _ = try await store.revokeEnrollmentTickets(ofUser: known.handle, now: now, recording: { _ in [] })
        _ = try await store.signingKeys()
        _ = try await store.addSigningKey(SigningKeyRecord(generation: 1, keyID: "k1", privateKey: [1], createdAt: now), recording: [])
        _ = try await store.secret(named: "planner")

        // Device keys and App Attest.
        let deviceKey = Self.bytes(knownIndex, tag: 5, count: 32)
        try await store.saveEnrollmentTicket(EnrollmentTicketRecord(
            hash: Fixtures.bytes(0xEF), userHandle: known.handle, createdAt: now, expiresAt: now.addingTimeInterval(600)), recording: [])
        try await store.saveDeviceKey(
            Fixtures.deviceKey(0, of: known).with(id: Fixtures.bytes(0xEC)), spendingTicket: (Fixtures.bytes(0xEF), now), recording: [])
        try await store.saveAppAttestKey(AppAttestKeyRecord(
            keyID: Fixtures.bytes(0xED), publicKey: [4] + Fixtures.bytes(2, count: 64), appID: "ABCDE12345.com.example.app",
            environment: "production", receipt: [1], createdAt: now))
        _ = try await store.deviceKey(id: deviceKey)
        _ = try await store.deviceKeys(ofUser: known.handle)
        _ = try await store.renameDeviceKey(id: deviceKey, ownedBy: known.handle, name: "iPad", recording: [])
        _ = try await store.recordDeviceKeySignIn(
            id: deviceKey, at: now, session: Fixtures.session(Fixtures.bytes(0xEA), of: known), endingSessions: [], recording: [])
        _ = try await store.deleteDeviceKey(id: deviceKey, ownedBy: known.handle, recording: [])
        _ = try await store.appAttestKey(id: Self.bytes(knownIndex, tag: 6, count: 32))
        _ = try await store.updateAppAttestCounters(id: Self.bytes(knownIndex, tag: 6, count: 32), from: (0, 1), to: (1, 3), at: now)

        // Events: a user's activity, the feed and its pages, filtered, one by ID.
        let activity = try await store.securityEvents(SecurityEventQuery(userHandle: known.handle, limit: 20))
        _ = try await store.securityEvents(SecurityEventQuery(userHandle: known.handle, before: activity.last?.sequence, limit: 20))
        let feed = try await store.securityEvents(SecurityEventQuery(limit: 50))
        _ = try await store.securityEvents(SecurityEventQuery(before: feed.last?.sequence, limit: 50))
        _ = try await store.securityEvents(SecurityEventQuery(types: [.signInSucceeded, .signInRefused], since: now, limit: 50))
        _ = try await store.securityEvent(id: feed.first?.id ?? "evt_none")

        // Webhooks: a claim, an attempt, the list, a retry, the outbox, a rename.
        let claimed = try await store.claimWebhookDeliveries(
            owner: "planner", now: now.addingTimeInterval(1), leaseUntil: now.addingTimeInterval(60), limit: 10, receivers: .all)
        _ = try await store.claimWebhookDeliveries(
            owner: "planner", now: now.addingTimeInterval(1), leaseUntil: now.addingTimeInterval(60), limit: 10, receivers: .only(Self.receiver))
        for (index, (delivery, _)) in claimed.enumerated() {
            let outcome: WebhookAttemptOutcome = index == 0 ? .dead(error: "gone") : index == 1 ? .retry(at: now, error: "503") : .delivered
            _ = try await store.finishWebhookDelivery(id: delivery.id, owner: "planner", outcome: outcome, now: now)
        }
        let dead = try await store.webhookDeliveries(state: .dead, before: nil, limit: 50)
        _ = try await store.webhookDeliveries(state: nil, before: nil, limit: 50)
        _ = try await store.webhookDeliveries(state: .pending, before: dead.last?.id ?? 1_000, limit: 50)
        _ = try await store.retryWebhookDelivery(id: dead.first?.id ?? 1, now: now, retryUntil: now.addingTimeInterval(3_600))
        _ = try await store.webhookOutboxStatus()
        _ = try await store.renameWebhookReceiver("https://old.example/hooks", to: Self.receiver)

        // Statistics: the console's range, a rebuild.
        let today = StatisticsDay(now)
        _ = try await store.statistics(from: today.adding(days: -89), through: today)
        _ = try await store.rebuildStatistics()

        // Tenants.
        _ = try await store.tenantDirectory()
        _ = try await store.tenantRevision()
        let extra = TenantRecord(
            id: TenantID("planner")!, hosts: ["planner.example"], settings: Array("{}".utf8), createdAt: now, updatedAt: now)
        try await store.createTenant(extra, recording: [])
        var moved = extra
        moved.hosts = ["planner2.example"]
        _ = try await store.tenant(id: extra.id)
        _ = try await store.updateTenant(moved, from: extra, recording: [])
        _ = try await store.deleteTenant(id: extra.id, recording: [])

        // The OpenID provider: a client's life, a grant's code, tokens and revocation.
        let client = OAuthClientRecord(
            clientID: "planner-extra", name: "Extra", secretHash: nil, redirectURIs: ["https://extra.example/cb"], postLogoutRedirectURIs: [],
            scopes: ["openid"], consent: true, accessTokenLifetime: 600, refreshTokenLifetime: 86_400, createdAt: now, updatedAt: now)
        try await store.saveOAuthClient(client, recording: [])
        _ = try await store.oauthClient(id: client.clientID)
        _ = try await store.oauthClients(limit: 100)
        _ = try await store.updateOAuthClient(client, recording: [])
        var grant = Self.grant(Fixtures.bytes(0xC3, count: 16), of: known)
        try await store.saveOAuthGrant(grant, recording: [])
        _ = try await store.oauthGrant(id: grant.id)
        grant.codeUsedAt = now
        _ = try await store.replaceOAuthGrant(grant, recording: [])
        _ = try await store.revokeOAuthGrant(id: grant.id, now: now, recording: [])
        _ = try await store.revokeOAuthGrants(ofUser: known.handle, now: now)
        try await store.saveOAuthConsent(ofUser: known.handle, client: client.clientID, scopes: ["openid", "profile"], at: now)
        _ = try await store.oauthConsent(ofUser: known.handle, client: client.clientID)
        let device = Self.deviceAuthorization(Fixtures.bytes(0xC5, count: 16), userCode: Fixtures.bytes(0xC6, count: 32))
        try await store.saveOAuthDeviceAuthorization(device)
        _ = try await store.oauthDeviceAuthorization(grantID: device.grantID)
        _ = try await store.oauthDeviceAuthorization(userCodeHash: device.userCodeHash)
        try await store.noteOAuthDevicePoll(grantID: device.grantID, at: now, interval: 5)
        var approved = Self.grant(device.grantID, of: known)
        approved.codeHash = device.deviceCodeHash
        _ = try await store.decideOAuthDeviceAuthorization(grantID: device.grantID, .approved, by: known.handle, grant: approved, now: now)
        _ = try await store.deleteOAuthClient(id: client.clientID, recording: [])

        // Limits shared across instances, where the backend shares them.
        if let shared = store as? any SharedLimitsStore {
            let client = LimitedClient(tenant: Self.tenants[0], client: "203.0.113.7")
            _ = try await shared.reconcileLimits(LimitReport(draws: [LimitReport.Draw(client: client, tokens: 1, rate: 1, burst: 10)]))
        }

        // Operations.
        try await store.checkWritable(now: now)
        _ = try await store.liveRecordCounts(now: now)
        try await store.purgeExpired(now: now.addingTimeInterval(-86_400))
        try await store.purgeSecurityEvents(eventsBefore: now.addingTimeInterval(-86_400 * 400), deliveriesBefore: now.addingTimeInterval(-86_400 * 30))
    }

    // MARK: Rows

    static func user(_ index: Int) -> UserRecord {
        UserRecord(handle: bytes(index, tag: 0, count: 64), username: "user\(index)", displayName: "User \(index)", createdAt: Fixtures.now)
    }

    /// `count` bytes unique to (`index`, `tag`).
    static func bytes(_ index: Int, tag: UInt8, count: Int) -> [UInt8] {
        [tag, UInt8(truncatingIfNeeded: index >> 16), UInt8(truncatingIfNeeded: index >> 8), UInt8(truncatingIfNeeded: index)]
            + [UInt8](repeating: 0x5A, count: count - 4)
    }

    static func event(_ type: SecurityEventType, _ index: Int, user: UserRecord?) -> SecurityEvent {
        SecurityEvent(
            id: "evt_planner_\(type.rawValue)_\(index)_\(UUID().uuidString.prefix(8))", type: type,
            occurredAt: Fixtures.now, userHandle: user?.handle, username: user?.username, actor: .user, detail: "planner")
    }
}

extension PendingCeremony {
    fileprivate func with(challenge: [UInt8]) -> PendingCeremony {
        var copy = self
        copy.challengeHash = challenge
        return copy
    }
}

extension DeviceKeyRecord {
    fileprivate func with(id: [UInt8]) -> DeviceKeyRecord {
        var copy = self
        copy.id = id
        return copy
    }
}

extension NewRegistration {
    fileprivate func consuming(_ challengeHash: [UInt8]) -> NewRegistration {
        var copy = self
        copy.challengeHash = challengeHash
        return copy
    }
}

extension CompletedSignIn {
    fileprivate func recording(_ events: [SecurityEvent]) -> CompletedSignIn {
        var copy = self
        copy.events = events
        return copy
    }
}
