import Foundation
import Glibc
import LatchkeyStore
import PostgresNIO
import Testing
import WebAuthn

@testable import LatchkeyStorePostgres

/// What only the PostgreSQL store does: migrations, several instances (each a store with its own
/// connection pool) on one database, reaching the server, and rows it did not write. Interface
/// behaviour is in ``StoreContractTests``, which runs against PostgreSQL too.
@Suite("PostgreSQL store", .closesTestDatabases, .disabled(if: TestPostgres.skipped, "LATCHKEY_TEST_SKIP_POSTGRES is set"))
struct PostgresStoreTests {
    // MARK: Migrations

    @Test func migrationsBringAnEmptyDatabaseToTheLatestVersion() async throws {
        let database = try await TestPostgres.makeDatabase()
        #expect(try await appliedVersions(database) == [], "a new database has no version table")
        let store = try await TestPostgres.open(database)
        let latest = Array(1...PostgresSchema.migrations.count)
        #expect(try await appliedVersions(database) == latest)
        #expect(try await tables(database).isSuperset(of: ["users", "credentials", "pending_ceremonies", "sessions", "secrets"]))
        // Usable at once, and opening again migrates nothing.
        let alice = Fixtures.user("alice", handle: 1)
        try await store.registerNew(alice, with: Fixtures.detailedCredential(7, of: alice))
        let again = try await TestPostgres.open(database)
        #expect(try await appliedVersions(database) == latest)
        #expect(try await again.user(named: "alice") == alice, "reopening keeps data")
    }

    @Test func instancesStartingTogetherMigrateOnce() async throws {
        let database = try await TestPostgres.makeDatabase()
        let instances = 4
        let stores = try await withThrowingTaskGroup(of: PostgresStore.self) { group in
            for _ in 0..<instances {
                group.addTask { try await TestPostgres.open(database) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(stores.count == instances)
        #expect(try await appliedVersions(database) == Array(1...PostgresSchema.migrations.count), "each migration once")
        let alice = Fixtures.user("alice", handle: 1)
        try await stores[0].registerNew(alice, with: Fixtures.credential(7, of: alice))
        #expect(try await stores[instances - 1].user(named: "alice") == alice)
    }

    @Test func aSchemaNewerThanThisBinaryIsRefused() async throws {
        let database = try await TestPostgres.makeDatabase()
        _ = try await TestPostgres.open(database)
        try await sql(database, "INSERT INTO latchkey_schema_migrations (version) VALUES (\(PostgresSchema.migrations.count + 1))")
        let error = await #expect(throws: StoreError.self) { try await TestPostgres.open(database) }
        #expect(error?.code == .database)
        #expect(error?.message.contains("newer") == true)
    }

    /// A database written before tenants opens with every row in the default tenant, and the keys and
    /// foreign keys rebuilt with their tenant still hold.
    @Test func rowsFromBeforeTenantsAreTheDefaultTenants() async throws {
        let database = try await TestPostgres.makeDatabase()
        let beforeTenants = 8  // the migrations of 0.8.0
        try await sql(database, "CREATE TABLE latchkey_schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
        for (index, statements) in PostgresSchema.migrations.prefix(beforeTenants).enumerated() {
            for statement in statements { try await sql(database, statement) }
            try await sql(database, "INSERT INTO latchkey_schema_migrations (version) VALUES (\(index + 1))")
        }
        for statement in [
            "INSERT INTO users (handle, username, display_name, created_at) VALUES ('\\x01', 'dora', 'Dora', now())",
            """
            INSERT INTO credentials (id, user_handle, public_key, algorithm, sign_count, transports, aaguid, attestation_format,
                attestation_type, backup_eligible, backed_up, resident_key, user_verified, created_at, attestation_trusted, trust_path)
            VALUES ('\\x0707', '\\x01', '\\xA501', -7, 3, '{internal}', '\\x00000000000000000000000000000000', 'none', 'none',
                true, true, true, true, now(), false, '{}')
            """,
            "INSERT INTO sessions (token_hash, user_handle, created_at, expires_at) VALUES ('\\x02', '\\x01', now(), now() + interval '1 day')",
            "INSERT INTO admin_keys (name, key_hash, created_at) VALUES ('backend', '\\x08', now())",
            "INSERT INTO signing_keys (generation, key_id, private_key, created_at, signs_from) VALUES (1, 'kid', '\\x01', now(), now())",
            "INSERT INTO secrets (name, value) VALUES ('decoys', '\\x0909')",
        ] {
            try await sql(database, statement)
        }

        let store = try await TestPostgres.open(database)
        #expect(try await appliedVersions(database) == Array(1...PostgresSchema.migrations.count))
        #expect(try await store.user(named: "dora")?.handle == [1])
        #expect(try await store.credential(id: [7, 7])?.signCount == 3)
        #expect(try await store.session(tokenHash: [2], now: Date())?.user.username == "dora")
        #expect(try await store.useAdminKey(hash: [8], now: Date())?.name == "backend")
        #expect(try await store.signingKeys().map(\.keyID) == ["kid"])
        #expect(try await store.secret(named: "decoys") == [9, 9])
        let other = store.scoped(to: StoreContractTests.otherTenant)
        #expect(try await other.user(named: "dora") == nil)
        #expect(try await other.secret(named: "decoys") != [9, 9])
        // The rebuilt foreign keys cascade: removing the user removes the passkey and the session.
        #expect(try await store.deleteUser(handle: [1]) == [[7, 7]])
        #expect(try await store.credential(id: [7, 7]) == nil)
    }

    // MARK: Two instances on one database

    @Test func racingSignInsOnTwoInstancesCannotBothPass() async throws {
        let (first, second) = try await twoInstances()
        let alice = Fixtures.user("alice", handle: 1)
        let credential = Fixtures.credential(7, of: alice, signCount: 0)
        try await first.registerNew(alice, with: credential)
        // Several rounds, so the two statements really meet at the row lock some of the time.
        for round: UInt32 in 0..<20 {
            let tokens = [Fixtures.bytes(index: Int(round) * 2), Fixtures.bytes(index: Int(round) * 2 + 1)]
            async let a = first.recordAnswered(Fixtures.signIn(
                credential, from: round, to: round + 1, session: Fixtures.session(tokens[0], of: alice)))
            async let b = second.recordAnswered(Fixtures.signIn(
                credential, from: round, to: round + 1, session: Fixtures.session(tokens[1], of: alice)))
            let outcomes = try await [a, b]
            #expect(outcomes.filter { $0 == .recorded }.count == 1, "round \(round): exactly one sign-in wins")
            #expect(outcomes.filter { $0 == .counterMoved }.count == 1, "round \(round): the other sees the counter moved")
            let sessions = [try await second.hasSession(tokens[0]), try await first.hasSession(tokens[1])]
            #expect(sessions == outcomes.map { $0 == .recorded }, "round \(round): only the winner's session exists")
            #expect(try await second.credential(id: credential.id)?.signCount == round + 1)
        }
    }

    @Test func aPendingCeremonyIsTakenOnceAcrossInstances() async throws {
        let (first, second) = try await twoInstances()
        let alice = Fixtures.user("alice", handle: 1)
        let credential = Fixtures.credential(7, of: alice, signCount: 0)
        try await first.registerNew(alice, with: credential)
        for round in 0..<10 {
            let ceremony = Fixtures.signInCeremony(Fixtures.bytes(index: round))
            try await first.savePendingCeremony(ceremony)
            // Half the attempts take the ceremony as a failed answer does, half record a sign-in with it.
            @Sendable func answer(_ attempt: Int) -> CompletedSignIn {
                var answer = Fixtures.signIn(
                    credential, from: 0, to: 0, session: Fixtures.session(Fixtures.bytes(index: 1_000 + round * 8 + attempt), of: alice))
                answer.challengeHash = ceremony.challengeHash
                return answer
            }
            let taken = try await withThrowingTaskGroup(of: PendingCeremony?.self) { group in
                for attempt in 0..<8 {
                    let store = attempt.isMultiple(of: 2) ? first : second
                    group.addTask {
                        attempt < 4
                            ? try await store.takePendingCeremony(challengeHash: ceremony.challengeHash)
                            : try await store.recordSignIn(answer(attempt)) == .recorded ? ceremony : nil
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(taken.compactMap { $0 } == [ceremony], "round \(round): exactly one answer gets the ceremony")
        }
    }

    @Test func racingDeletesOfTheLastTwoPasskeysOnTwoInstancesLeaveOne() async throws {
        let (first, second) = try await twoInstances()
        for round in 0..<10 {
            let user = Fixtures.user("user\(round)", handle: UInt8(round + 1))
            let credentials = [Fixtures.credential(UInt8(2 * round + 100), of: user), Fixtures.credential(UInt8(2 * round + 101), of: user)]
            try await first.registerNew(user, with: credentials[0])
            try await second.register(NewRegistration(credential: credentials[1], newUser: nil))
            async let a = first.deleteCredential(id: credentials[0].id, ownedBy: user.handle)
            async let b = second.deleteCredential(id: credentials[1].id, ownedBy: user.handle)
            let outcomes = try await [a, b]
            #expect(outcomes.filter { $0 == .deleted }.count == 1, "round \(round): one removal succeeds")
            #expect(outcomes.filter { $0 == .lastCredential }.count == 1, "round \(round): the other is refused")
            #expect(try await first.credentials(ofUser: user.handle).count == 1, "round \(round): one passkey stays")
        }
    }

    /// Two instances on a new database whose webhook outbox has one receiver, and alice with her passkey 1 (counter 3).
    static func aliceOnTwoInstances() async throws -> (PostgresStore, PostgresStore, WebhookOutbox, UserRecord) {
        let database = try await TestPostgres.makeDatabase()
        let outbox = WebhookOutbox(receivers: ["https://a.example/hooks"])
        let (first, second) = (try await TestPostgres.open(database, webhooks: outbox), try await TestPostgres.open(database, webhooks: outbox))
        let alice = Fixtures.user("alice", handle: 1)
        try await first.registerNew(alice, with: Fixtures.credential(1, of: alice, signCount: 3))
        return (first, second, outbox, alice)
    }

    /// A sign-in of alice's passkey 1 (counter 3 to 4) that records `event`, its challenge pending on `store`.
    static func signIn(of alice: UserRecord, recording event: SecurityEvent, pendingOn store: PostgresStore) async throws -> CompletedSignIn {
        var signIn = Fixtures.signIn(Fixtures.credential(1, of: alice, signCount: 3), from: 3, to: 4, session: Fixtures.session(1, of: alice))
        signIn.events = [event]
        try await store.savePendingCeremony(Fixtures.signInCeremony(signIn.challengeHash))
        return signIn
    }

    /// How the later of two changes for one user writes its event: with a statement of its own, or inside the one
    /// statement that records a sign-in.
    enum LaterChange: CaseIterable { case event, signIn }

    /// Two changes for one user on two instances, the first still uncommitted when the second is made: a claim must
    /// not send the later event before the earlier one exists (identity values are drawn in one order and may commit
    /// in the other).
    @Test(arguments: LaterChange.allCases)
    func oneUsersDeliveriesAreClaimedInOrderWhateverOrderTheirTransactionsCommitIn(later kind: LaterChange) async throws {
        let (first, second, outbox, alice) = try await Self.aliceOnTwoInstances()
        let earlier = StoreContractTests.event(.passkeyRenamed, 1, user: alice)
        let later = StoreContractTests.event(.signInSucceeded, 2, user: alice)
        let signIn = try await Self.signIn(of: alice, recording: later, pendingOn: second)

        let (written, writtenSignal) = AsyncStream.makeStream(of: Void.self)
        let (commit, commitSignal) = AsyncStream.makeStream(of: Void.self)
        // The earlier change writes its event and delivery, then waits, its transaction open.
        async let earlierChange: Void = first.transaction { connection in
            try await PostgresStore.insert([earlier], of: .default, outbox: outbox, on: connection)
            writtenSignal.yield()
            for await _ in commit { break }
        }
        for await _ in written { break }
        @Sendable func makeLaterChange() async throws {
            switch kind {
            case .event: try await second.recordEvent(later)
            case .signIn: #expect(try await second.recordSignIn(signIn) == .recorded)
            }
        }
        async let laterChange: Void = makeLaterChange()
        try await Task.sleep(for: .milliseconds(500))
        let now = Fixtures.now.addingTimeInterval(10)
        func claim() async throws -> [(delivery: WebhookDelivery, event: SecurityEvent)] {
            try await second.claimWebhookDeliveries(owner: "sender", now: now, leaseUntil: now.addingTimeInterval(30), limit: 10, receivers: .all)
        }
        #expect(try await claim().isEmpty, "the later event is not sent while the earlier one is uncommitted")
        commitSignal.yield()
        try await earlierChange
        try await laterChange
        let head = try await claim()
        #expect(head.map(\.event.id) == [earlier.id])
        for (delivery, _) in head { #expect(try await second.finishWebhookDelivery(id: delivery.id, owner: "sender", outcome: .delivered, now: now)) }
        #expect(try await claim().map(\.event.id) == [later.id])
    }

    /// A change that reaches its user's ordering lock while another change for the user holds it waits before its
    /// event draws its sequence number, so a user's events are listed in the order they are sent (once the lock was
    /// taken after the event's row: the waiting event had the lower number and was sent second).
    @Test(arguments: LaterChange.allCases)
    func oneUsersEventsAreNumberedInTheOrderTheyAreSent(waiting kind: LaterChange) async throws {
        let (first, second, outbox, alice) = try await Self.aliceOnTwoInstances()
        let holder = StoreContractTests.event(.passkeyRenamed, 1, user: alice)
        let waiter = StoreContractTests.event(.signInSucceeded, 2, user: alice)
        let signIn = try await Self.signIn(of: alice, recording: waiter, pendingOn: first)

        let (locked, lockedSignal) = AsyncStream.makeStream(of: Void.self)
        let (write, writeSignal) = AsyncStream.makeStream(of: Void.self)
        // The holder's change has taken alice's ordering lock, as writing its event does, and is about to write it.
        async let holding: Void = second.transaction { connection in
            var lock = PostgresQuery(unsafeSQL: "SELECT pg_advisory_xact_lock(\(PostgresStore.deliveryOrderLockClass), hashtext(encode($1::bytea, 'hex')))")
            lock.binds.append(ByteBuffer(bytes: alice.handle))
            try await PostgresStore.execute(lock, on: connection)
            lockedSignal.yield()
            for await _ in write { break }
            try await PostgresStore.insert([holder], of: .default, outbox: outbox, on: connection)
        }
        for await _ in locked { break }
        @Sendable func makeWaitingChange() async throws {
            switch kind {
            case .event: try await first.recordEvent(waiter)
            case .signIn: #expect(try await first.recordSignIn(signIn) == .recorded)
            }
        }
        async let waiting: Void = makeWaitingChange()
        try await Task.sleep(for: .milliseconds(500))
        writeSignal.yield()
        try await holding
        try await waiting

        let listed = try await first.securityEvents(SecurityEventQuery(userHandle: alice.handle)).reversed().map(\.id)
        #expect(listed.filter { [holder.id, waiter.id].contains($0) } == [holder.id, waiter.id], "numbered in the order they committed")
        let now = Fixtures.now.addingTimeInterval(10)
        var sent: [String] = []
        for _ in 0..<2 {
            let head = try await second.claimWebhookDeliveries(owner: "sender", now: now, leaseUntil: now.addingTimeInterval(30), limit: 10, receivers: .all)
            for (delivery, event) in head {
                sent.append(event.id)
                #expect(try await second.finishWebhookDelivery(id: delivery.id, owner: "sender", outcome: .delivered, now: now))
            }
        }
        #expect(sent == [holder.id, waiter.id], "sent in the same order")
    }

    @Test func instancesShareOneSecret() async throws {
        let (first, second) = try await twoInstances()
        async let a = first.secret(named: "decoys")
        async let b = second.secret(named: "decoys")
        let secrets = try await [a, b]
        #expect(secrets[0] == secrets[1])
        #expect(secrets[0].count == 32)
    }

    @Test func aSessionStartedOnOneInstanceIsLiveOnTheOther() async throws {
        let (first, second) = try await twoInstances()
        let alice = Fixtures.user("alice", handle: 1)
        let session = Fixtures.session(1, of: alice)
        try await first.registerNew(alice, with: Fixtures.credential(7, of: alice), session: session)
        #expect(try await second.session(tokenHash: session.tokenHash, now: Fixtures.now)?.user == alice)
        try await second.deleteSessions(tokenHashes: [session.tokenHash])
        #expect(try await first.hasSession(session.tokenHash) == false, "ended everywhere at once")
    }

    /// Rate limits drawn on two instances come from one shared bucket per tenant and client; each instance hears of
    /// the other's pending challenges, not of its own; a bucket full again is forgotten.
    @Test func twoInstancesCountLimitsTogether() async throws {
        let database = try await TestPostgres.makeDatabase()
        let (first, second) = (try await TestPostgres.open(database), try await TestPostgres.open(database))
        #expect(first.instance != second.instance)
        let shop = try #require(TenantID("shop"))
        let client = LimitedClient(tenant: .default, client: "203.0.113.7")
        let sameAddressInShop = LimitedClient(tenant: shop, client: "203.0.113.7")
        func draw(_ client: LimitedClient, _ tokens: Double) -> LimitReport.Draw {
            LimitReport.Draw(client: client, tokens: tokens, rate: 0.01, burst: 5)
        }
        let afterFirst = try await first.reconcileLimits(LimitReport(draws: [draw(client, 4), draw(sameAddressInShop, 1)]))
        #expect(abs(try #require(afterFirst.buckets[client]) - 1) < 0.1)
        #expect(abs(try #require(afterFirst.buckets[sameAddressInShop]) - 4) < 0.1, "each tenant has its own bucket")
        let afterSecond = try await second.reconcileLimits(LimitReport(draws: [draw(client, 3)]))
        #expect(abs(try #require(afterSecond.buckets[client]) + 2) < 0.1, "overdrawn by the two together")
        // The first hears that the client's bucket is empty without drawing on it; a bucket with tokens is not sent.
        let heard = try await first.reconcileLimits(LimitReport(draws: []))
        #expect(heard.buckets.keys.sorted { $0.client < $1.client } == [client])

        // Pending challenges: each instance is told of the other's, per client from the threshold, and per tenant.
        let scopedFirst = first.scoped(to: .default)
        for index in 0..<3 {
            var ceremony = Fixtures.signInCeremony(Fixtures.bytes(index: index))
            (ceremony.client, ceremony.expiresAt) = (client.client, Date() + 300)
            try await scopedFirst.savePendingCeremony(ceremony)
        }
        var lone = Fixtures.signInCeremony(Fixtures.bytes(index: 10))
        (lone.client, lone.expiresAt) = ("198.51.100.1", Date() + 300)
        try await first.scoped(to: shop).savePendingCeremony(lone)
        var expired = Fixtures.signInCeremony(Fixtures.bytes(index: 11))
        (expired.client, expired.expiresAt) = (client.client, Date() - 1)
        try await scopedFirst.savePendingCeremony(expired)
        let told = try await second.reconcileLimits(LimitReport(draws: [], pendingThreshold: 2))
        #expect(told.pendingElsewhere == [client: 3], "a lone challenge is under the threshold; an expired one is not pending")
        #expect(told.pendingElsewhereByTenant == [.default: 3, shop: 1])
        let own = try await first.reconcileLimits(LimitReport(draws: []))
        #expect(own.pendingElsewhere.isEmpty && own.pendingElsewhereByTenant.isEmpty, "its own are counted one by one already")
        _ = try await scopedFirst.takePendingCeremony(challengeHash: Fixtures.bytes(index: 0))
        #expect(try await second.reconcileLimits(LimitReport(draws: [])).pendingElsewhere == [client: 2], "an answered one is gone")

        // A bucket that refilled to full is removed.
        let quick = LimitedClient(tenant: .default, client: "198.51.100.2")
        _ = try await first.reconcileLimits(LimitReport(draws: [LimitReport.Draw(client: quick, tokens: 1, rate: 1_000, burst: 2)]))
        try await Task.sleep(for: .milliseconds(20))
        _ = try await second.reconcileLimits(LimitReport(draws: []))
        let left = try await TestPostgres.withConnection(to: database) { connection in
            try await PostgresStore.rows("SELECT client FROM rate_limit_buckets ORDER BY client", on: connection) { try $0.next(String.self) }
        }
        #expect(left == ["203.0.113.7", "203.0.113.7"], "the default's and the shop's buckets of that address; not the full one")
    }

    // MARK: Reaching the server

    @Test func aClosedPortFailsAtOnceNamingTheServerNotThePassword() async throws {
        var configuration = try TestPostgres.server()
        configuration.port = try closedPort()
        configuration.password = "hunter2-secret"
        let started = ContinuousClock.now
        let error = await #expect(throws: StoreError.self) { try await PostgresStore.open(configuration) }
        // Well under the pool's own minute of retries. The bound is loose because the whole suite
        // runs in parallel on two cores, where a busy cooperative pool delays the failure by seconds.
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("127.0.0.1:\(configuration.port)") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("hunter2") == false)
    }

    @Test func aServerThatNeverAnswersTimesOut() async throws {
        let silent = try SilentListener()
        var configuration = try TestPostgres.server()
        configuration.port = silent.port
        configuration.connectTimeout = .seconds(1)
        let started = ContinuousClock.now
        let error = await #expect(throws: StoreError.self) { try await PostgresStore.open(configuration) }
        #expect(ContinuousClock.now - started < .seconds(30), "the connect timeout bounds the wait (loosely: the suite runs in parallel on two cores)")
        #expect(error?.message.contains("no answer within 1 s") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains(configuration.password ?? "<no password>") == false)
    }

    @Test func aWrongPasswordIsRefusedWithoutQuotingIt() async throws {
        var configuration = try TestPostgres.server()
        configuration.password = "not-the-password-\(UInt32.random(in: 0...UInt32.max))"
        let error = await #expect(throws: StoreError.self) { try await PostgresStore.open(configuration) }
        let message = error?.message ?? ""
        #expect(message.contains("28P01"), "invalid_password: \(message)")
        #expect(message.contains(configuration.password ?? "") == false)
    }

    @Test func aMissingDatabaseIsNamed() async throws {
        var configuration = try TestPostgres.server()
        configuration.database = "latchkey_no_such_database"
        let error = await #expect(throws: StoreError.self) { try await PostgresStore.open(configuration) }
        #expect(error?.message.contains("latchkey_no_such_database") == true)
    }

    /// While the server is down the pool retries for a minute; a call must not wait that long.
    /// Here the only connection is busy instead: the wait for it is bounded the same way (an
    /// unavailable store, which the server answers with 503), and the call that has its connection
    /// runs to the end however long it takes.
    @Test func aCallWaitsForAConnectionNoLongerThanTheLeaseTimeout() async throws {
        var database = try await TestPostgres.makeDatabase()
        database.maximumConnections = 1
        database.leaseTimeout = .seconds(1)
        let store = try await TestPostgres.open(database)
        // The one connection made first. On a loaded machine making it can take longer than the lease timeout, which
        // refuses the call without ending the pool's attempt: ask again until the connection is there.
        let warming = ContinuousClock.now
        while true {
            do {
                _ = try await store.user(named: "warm-up")
                break
            } catch let error as StoreError where error.code == .unavailable && ContinuousClock.now - warming < .seconds(60) {
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        async let busy: Void = store.execute("SELECT pg_sleep(20)")
        try await Task.sleep(for: .milliseconds(500))
        let started = ContinuousClock.now
        let error = await #expect(throws: StoreError.self) { try await store.user(named: "alice") }
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(900) && waited < .seconds(19), "waited \(waited) (less than the 20 s the connection is busy)")
        #expect(error?.message.hasPrefix("no connection to PostgreSQL at 127.0.0.1:") == true, "\(error?.message ?? "")")
        #expect(error?.code == .unavailable)
        try await busy
        #expect(try await store.user(named: "alice") == nil, "usable again once the connection is free")
    }

    // MARK: Closing

    @Test func closingIsFinalAndIdempotent() async throws {
        let store = try await TestPostgres.makeStore()
        await store.close()
        await store.close()
        let error = await #expect(throws: StoreError.self) { try await store.credential(id: [1]) }
        #expect(error?.message == "the store is closed")
        #expect(error?.code == .unavailable)
        await #expect(throws: StoreError.self) { try await store.purgeExpired(now: Fixtures.now) }
    }

    @Test func cancellingRunClosesTheStore() async throws {
        let store = try await TestPostgres.makeStore()
        let running = Task { try await store.run() }
        _ = try await store.user(named: "alice")
        running.cancel()
        try await running.value
        await #expect(throws: StoreError.self) { try await store.user(named: "alice") }
    }

    // MARK: Rows the store did not write

    @Test func unknownTransportsAreDropped() async throws {
        let database = try await TestPostgres.makeDatabase()
        let store = try await TestPostgres.open(database)
        let alice = Fixtures.user("alice", handle: 1)
        let credential = Fixtures.credential(7, of: alice)
        try await store.registerNew(alice, with: credential)
        try await sql(database, "UPDATE credentials SET transports = '{usb,carrier-pigeon,\"\",internal}'")
        #expect(try await store.credential(id: credential.id)?.transports == [.usb, .internal])
    }

    @Test func anUnknownAttestationTypeThrowsNamingIt() async throws {
        let database = try await TestPostgres.makeDatabase()
        let store = try await TestPostgres.open(database)
        let alice = Fixtures.user("alice", handle: 1)
        let credential = Fixtures.credential(7, of: alice)
        try await store.registerNew(alice, with: credential)
        try await sql(database, "UPDATE credentials SET attestation_type = 'notarised'")
        let error = await #expect(throws: StoreError.self) { try await store.credential(id: credential.id) }
        #expect(error?.code == .database)
        #expect(error?.message.contains("\"notarised\"") == true)
        let lookupError = await #expect(throws: StoreError.self) {
            try await store.signInLookup(challengeHash: Fixtures.bytes(1), credentialID: credential.id)
        }
        #expect(lookupError?.code == .database)
    }

    @Test func anUnknownUserVerificationThrowsNamingIt() async throws {
        let database = try await TestPostgres.makeDatabase()
        let store = try await TestPostgres.open(database)
        let ceremony = Fixtures.signInCeremony(1)
        try await store.savePendingCeremony(ceremony)
        try await sql(database, "UPDATE pending_ceremonies SET user_verification = 'sometimes'")
        let error = await #expect(throws: StoreError.self) {
            try await store.takePendingCeremony(challengeHash: ceremony.challengeHash)
        }
        #expect(error?.code == .database)
        #expect(error?.message.contains("\"sometimes\"") == true)
    }

    @Test func usernamesAreStoredAsTheirUTF8() async throws {
        let database = try await TestPostgres.makeDatabase()
        let store = try await TestPostgres.open(database)
        let odd = Fixtures.user("zoë\u{0}", handle: 1)
        try await store.registerNew(odd, with: Fixtures.credential(7, of: odd))
        let stored = try await TestPostgres.withConnection(to: database) { connection in
            try await PostgresStore.rows("SELECT username FROM users", on: connection) { try $0.bytes() }
        }
        #expect(stored == [Array("zoë\u{0}".utf8)])
    }

    // MARK: Helpers

    private func twoInstances() async throws -> (PostgresStore, PostgresStore) {
        let database = try await TestPostgres.makeDatabase()
        return (try await TestPostgres.open(database), try await TestPostgres.open(database))
    }

    private func sql(_ database: PostgresStore.Configuration, _ statement: String) async throws {
        try await TestPostgres.withConnection(to: database) { connection in
            try await PostgresStore.execute(PostgresQuery(unsafeSQL: statement), on: connection)
        }
    }

    /// The migrations recorded in the database; empty when it has no version table yet.
    private func appliedVersions(_ database: PostgresStore.Configuration) async throws -> [Int] {
        try await TestPostgres.withConnection(to: database) { connection in
            let exists = try await PostgresStore.rows(
                "SELECT to_regclass('latchkey_schema_migrations') IS NOT NULL", on: connection) { try $0.next(Bool.self) }
            guard exists.first == true else { return [] }
            return try await PostgresStore.rows(
                "SELECT version FROM latchkey_schema_migrations ORDER BY version", on: connection) { Int(try $0.next(Int64.self)) }
        }
    }

    private func tables(_ database: PostgresStore.Configuration) async throws -> Set<String> {
        try await TestPostgres.withConnection(to: database) { connection in
            Set(try await PostgresStore.rows(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public'", on: connection) { try $0.next(String.self) })
        }
    }

    /// A loopback port nothing listens on: bound, then released.
    private func closedPort() throws -> Int {
        let listener = try SilentListener()
        let port = listener.port
        listener.close()
        return port
    }
}

/// A loopback TCP socket that accepts connections (the kernel completes the handshake) and never
/// says a word: a server that hangs.
final class SilentListener: @unchecked Sendable {
    private var descriptor: Int32
    let port: Int

    init() throws {
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketDescriptor >= 0 else { throw StoreError(.database, "socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socketDescriptor, pointer, length) == 0 && listen(socketDescriptor, 16) == 0
                    && getsockname(socketDescriptor, pointer, &length) == 0
            }
        }
        guard bound else {
            Glibc.close(socketDescriptor)
            throw StoreError(.database, "bind(), listen() or getsockname() failed")
        }
        descriptor = socketDescriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }

    deinit { close() }
}
