import Foundation
import LatchkeyStore
import Testing
import WebAuthn

@testable import LatchkeyStoreSQLite

/// What only the SQLite store does: files, folders, the schema and its migrations, several
/// connections on one file, and what it makes of rows it did not write. Interface behaviour is in
/// ``StoreContractTests``.
@Suite("SQLite store")
struct SQLiteStoreTests {
    let path = TemporaryDatabase.newPath()

    // MARK: Files

    @Test func createsTheFileAndItsFolders() throws {
        #expect(FileManager.default.fileExists(atPath: path) == false)
        _ = try SQLiteStore(path: path)
        #expect(FileManager.default.fileExists(atPath: path))
    }

    /// The file holds token signing keys: it, its write-ahead log and a folder made for it are the
    /// owner's alone, whatever the umask (here the usual 022).
    @Test func aNewDatabaseIsItsOwnersAlone() async throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        let store = try SQLiteStore(path: path)
        try await store.createUser(Fixtures.user("alice", handle: 1))
        func mode(_ path: String) throws -> Int {
            try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        }
        #expect(try mode(URL(fileURLWithPath: path).deletingLastPathComponent().path) == 0o700)
        for file in [path, path + "-wal", path + "-shm"] {
            #expect(try mode(file) == 0o600, "\(file)")
        }
    }

    @Test func aBadPathFailsWhenOpening() throws {
        let blocker = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: blocker.deletingLastPathComponent(), withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: blocker.path, contents: Data("a file".utf8)))
        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: path) }
        #expect(error?.code == .database)
    }

    @Test func reopeningKeepsData() async throws {
        let alice = Fixtures.user("alice", handle: 1)
        let credential = Fixtures.detailedCredential(7, of: alice)
        do {
            let store = try SQLiteStore(path: path)
            try await store.registerNew(alice, with: credential, session: Fixtures.session(1, of: alice))
            store.close()
        }
        let reopened = try SQLiteStore(path: path)
        #expect(try await reopened.user(named: "alice") == alice)
        #expect(try await reopened.credential(id: credential.id) == credential)
        #expect(try await reopened.hasSession(Fixtures.bytes(1)))
    }

    // MARK: Schema

    @Test func migrationsBringANewFileToTheLatestVersion() throws {
        _ = try SQLiteStore(path: path)
        #expect(try SQLiteConnection(path: path).userVersion == SQLiteSchema.migrations.count)
    }

    /// The HTTP benchmark seeds `users` and `credentials` directly with the columns of migrations 1
    /// and 2; a file at version 1 must migrate keeping its rows.
    @Test func rowsWrittenWithTheFirstSchemaSurviveMigration() async throws {
        try FileManager.default.createDirectory(
            at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
        do {
            let old = try SQLiteConnection(path: path)
            try old.execute(SQLiteSchema.migrations[0])
            try old.execute("PRAGMA user_version = 1")
            try old.execute("""
                INSERT INTO users VALUES (x'01', 'dora', 'Dora', 0);
                INSERT INTO credentials (id, user_handle, public_key, algorithm, sign_count, transports, aaguid,
                    attestation_format, attestation_type, backup_eligible, backed_up, resident_key, user_verified, created_at)
                VALUES (x'0A0B', x'01', x'A5', -7, 5, 'usb', zeroblob(16), 'none', 'none', 0, 0, NULL, 1, 0);
                """)
        }
        let store = try SQLiteStore(path: path)
        let migrated = try #require(try await store.credential(id: [0x0A, 0x0B]))
        #expect(migrated.signCount == 5)
        #expect(migrated.algorithm == .es256)
        #expect(migrated.transports == [.usb])
        #expect(migrated.attestationFormat == .none)
        #expect(migrated.attestationType == .none)
        #expect(migrated.attestationTrusted == false)
        #expect(migrated.trustPath.isEmpty)
        #expect(migrated.credentialProtectionPolicy == nil)
        #expect(migrated.signCountRegressions == 0)
        #expect(migrated.residentKey == nil)
        #expect(try await store.user(named: "dora")?.handle == [0x01])
        #expect(try SQLiteConnection(path: path).userVersion == SQLiteSchema.migrations.count)
        // The statistics start from what the store held: one user, holding a passkey, counted on the migration's day.
        let today = StatisticsDay(Date())
        let report = try await store.statistics(from: today, through: today)
        #expect(report.rows.filter { $0.metric == .users }.map(\.count) == [1])
        #expect(report.rows.filter { $0.metric == .usersWithPasskey }.map(\.count) == [1])
        #expect(try await store.deleteCredentialEvenIfLast(id: [0x0A, 0x0B], ownedBy: [0x01], recording: [SecurityEvent(
            id: "evt_dora", type: .passkeyRemoved, occurredAt: Date(), userHandle: [0x01], actor: .user)]))
        let after = try await store.statistics(from: today, through: today)
        #expect(after.rows.filter { $0.metric == .usersWithPasskey }.reduce(0) { $0 + $1.count } == 0, "her last passkey gone, she holds none")
    }

    /// An App Attest key kept before the counter window refused every counter up to its highest; migrated, it still does.
    @Test func anAppAttestKeyKeptBeforeTheWindowHasEveryCounterBelowItsHighestSpent() async throws {
        try FileManager.default.createDirectory(
            at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
        do {
            let old = try SQLiteConnection(path: path)
            for migration in SQLiteSchema.migrations.dropLast() { try old.execute(migration) }
            try old.execute("PRAGMA user_version = \(SQLiteSchema.migrations.count - 1)")
            try old.execute("""
                INSERT INTO app_attest_keys (key_id, public_key, app_id, environment, receipt, counter, created_at)
                VALUES (x'01', x'04', 'ABCDE12345.com.example.app', 'production', x'00', 40, 0);
                """)
        }
        let key = try #require(try await SQLiteStore(path: path).appAttestKey(id: [0x01]))
        let counters = AppAttestCounters(highest: key.counter, accepted: key.acceptedCounters)
        #expect(key.acceptedCounters == UInt64.max)
        #expect(counters.accepting(39) == nil && counters.accepting(1) == nil && counters.accepting(41) != nil)
    }

    @Test func aSchemaNewerThanThisBinaryIsRefused() throws {
        _ = try SQLiteStore(path: path)
        try SQLiteConnection(path: path).execute("PRAGMA user_version = \(SQLiteSchema.migrations.count + 1)")
        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: path) }
        #expect(error?.code == .database)
        #expect(error?.message.contains("newer") == true)
    }

    // MARK: Rows the store did not write

    @Test func unknownTransportsAreDropped() async throws {
        let store = try SQLiteStore(path: path)
        let alice = Fixtures.user("alice", handle: 1)
        let credential = Fixtures.credential(7, of: alice)
        try await store.registerNew(alice, with: credential)
        try SQLiteConnection(path: path).execute(
            "UPDATE credentials SET transports = 'usb,carrier-pigeon,,internal,' WHERE id = x'\(hex(credential.id))'")
        #expect(try await store.credential(id: credential.id)?.transports == [.usb, .internal])
    }

    @Test func anUnknownAttestationTypeThrowsNamingIt() async throws {
        let store = try SQLiteStore(path: path)
        let alice = Fixtures.user("alice", handle: 1)
        let credential = Fixtures.credential(7, of: alice)
        try await store.registerNew(alice, with: credential)
        try SQLiteConnection(path: path).execute(
            "UPDATE credentials SET attestation_type = 'notarised' WHERE id = x'\(hex(credential.id))'")
        let error = await #expect(throws: StoreError.self) { try await store.credential(id: credential.id) }
        #expect(error?.code == .database)
        #expect(error?.message.contains("\"notarised\"") == true)
        let listError = await #expect(throws: StoreError.self) { try await store.credentials(ofUser: alice.handle) }
        #expect(listError?.code == .database)
    }

    @Test func anUnknownUserVerificationThrowsNamingIt() async throws {
        let store = try SQLiteStore(path: path)
        let ceremony = Fixtures.signInCeremony(1)
        try await store.savePendingCeremony(ceremony)
        try SQLiteConnection(path: path).execute("UPDATE pending_ceremonies SET user_verification = 'sometimes'")
        let error = await #expect(throws: StoreError.self) {
            try await store.takePendingCeremony(challengeHash: ceremony.challengeHash)
        }
        #expect(error?.code == .database)
        #expect(error?.message.contains("\"sometimes\"") == true)
    }

    // MARK: Statements and closing

    @Test func everyStatementIsPreparedOnce() async throws {
        let store = try SQLiteStore(path: path)
        func everyCall(_ round: UInt8) async throws {
            let user = Fixtures.user("user\(round)", handle: round)
            let credential = Fixtures.credential(round, of: user, signCount: 1)
            try await store.registerNew(user, with: credential, session: Fixtures.session(round, of: user))
            _ = try await store.user(named: user.username)
            _ = try await store.user(handle: user.handle)
            _ = try await store.credentials(ofUser: user.handle)
            _ = try await store.credential(id: credential.id)
            try await store.recordSignCountRegression(credentialID: credential.id)
            _ = try await store.recordAnswered(Fixtures.signIn(
                credential, from: 1, to: 2, session: Fixtures.session(round + 100, of: user), ending: [Fixtures.bytes(round)]))
            try await store.savePendingCeremony(Fixtures.signInCeremony(round))
            _ = try await store.takePendingCeremony(challengeHash: Fixtures.bytes(round))
            try await store.savePendingCeremony(Fixtures.signInCeremony(round))
            _ = try await store.signInLookup(challengeHash: Fixtures.bytes(round), credentialID: credential.id)
            _ = try await store.session(tokenHash: Fixtures.bytes(round + 100), now: Fixtures.now)
            try await store.deleteSessions(tokenHashes: [Fixtures.bytes(round + 100)])
            try await store.purgeExpired(now: Fixtures.now)
        }
        try await everyCall(1)
        let prepared = store.preparedStatementCount
        try await everyCall(2)
        try await everyCall(3)
        #expect(store.preparedStatementCount == prepared)
        #expect(prepared > 10)
    }

    @Test func closingIsExplicitFinalAndIdempotent() async throws {
        let store = try SQLiteStore(path: path)
        store.close()
        store.close()
        let error = await #expect(throws: StoreError.self) { try await store.credential(id: [1]) }
        #expect(error?.code == .unavailable)
        #expect(error?.message == "the store is closed")
        await #expect(throws: StoreError.self) { try await store.purgeExpired(now: Fixtures.now) }
    }

    @Test func cancellingRunClosesTheStore() async throws {
        let store = try SQLiteStore(path: path)
        let running = Task { try await store.run() }
        _ = try await store.user(named: "alice")
        running.cancel()
        try await running.value
        await #expect(throws: StoreError.self) { try await store.user(named: "alice") }
    }

    // MARK: Two connections on one file

    @Test func racingFirstRegistrationsFromTwoConnectionsLeaveOneUser() async throws {
        // Each waits for the other's lock as long as a loaded machine may need: the race is about who wins, not how fast.
        let stores = [try SQLiteStore(path: path, lockWait: .seconds(60)), try SQLiteStore(path: path, lockWait: .seconds(60))]
        let attempts = 20
        let codes = await withTaskGroup(of: StoreError.Code?.self) { group in
            for index in 0..<attempts {
                let store = stores[index % 2]
                let user = Fixtures.user("carol", handle: UInt8(index + 10))
                group.addTask {
                    do {
                        try await store.registerNew(user, with: Fixtures.credential(UInt8(index + 100), of: user))
                        return nil
                    } catch {
                        return (error as? StoreError)?.code ?? .database
                    }
                }
            }
            return await group.reduce(into: [StoreError.Code?]()) { $0.append($1) }
        }
        #expect(codes.filter { $0 == nil }.count == 1, "exactly one registration must win")
        #expect(codes.filter { $0 == .usernameTaken }.count == attempts - 1)
        let carol = try #require(try await stores[0].user(named: "carol"))
        #expect(try await stores[1].credentials(ofUser: carol.handle).count == 1)
    }

    @Test func aPendingCeremonyIsTakenOnceAcrossConnections() async throws {
        let first = try SQLiteStore(path: path, lockWait: .seconds(60))
        let second = try SQLiteStore(path: path, lockWait: .seconds(60))
        let alice = Fixtures.user("alice", handle: 1)
        let credential = Fixtures.credential(7, of: alice, signCount: 0)
        try await first.registerNew(alice, with: credential)
        var answer = Fixtures.signIn(credential, from: 0, to: 0, session: Fixtures.session(1, of: alice))
        let ceremony = Fixtures.signInCeremony(answer.challengeHash)
        answer.challengeHash = ceremony.challengeHash
        try await first.savePendingCeremony(ceremony)
        async let a = first.takePendingCeremony(challengeHash: ceremony.challengeHash)
        async let b = second.recordSignIn(answer)
        let (taken, recorded) = try await (a, b)
        #expect((taken != nil) != (recorded == .recorded), "exactly one of the two answers gets the ceremony")
    }

    @Test func twoProcessesOnOneFileShareASecret() async throws {
        let first = try SQLiteStore(path: path, lockWait: .seconds(60))
        let second = try SQLiteStore(path: path, lockWait: .seconds(60))
        async let a = first.secret(named: "decoys")
        async let b = second.secret(named: "decoys")
        let secrets = try await [a, b]
        #expect(secrets[0] == secrets[1])
        #expect(try await SQLiteStore(path: path).secret(named: "decoys") == secrets[0], "kept across opens")
    }

    @Test func racingSignInsOnTwoConnectionsCannotBothPass() async throws {
        let first = try SQLiteStore(path: path, lockWait: .seconds(60))
        let second = try SQLiteStore(path: path, lockWait: .seconds(60))
        let alice = Fixtures.user("alice", handle: 1)
        let credential = Fixtures.credential(7, of: alice, signCount: 5)
        try await first.registerNew(alice, with: credential)
        async let a = first.recordAnswered(Fixtures.signIn(credential, from: 5, to: 6, session: Fixtures.session(1, of: alice)))
        async let b = second.recordAnswered(Fixtures.signIn(credential, from: 5, to: 7, session: Fixtures.session(2, of: alice)))
        let results = try await [a, b].map { $0 == .recorded }
        #expect(results.filter { $0 }.count == 1)
        let sessions = [try await first.hasSession(Fixtures.bytes(1)), try await first.hasSession(Fixtures.bytes(2))]
        #expect(sessions == results, "only the winner's session exists")
    }

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
