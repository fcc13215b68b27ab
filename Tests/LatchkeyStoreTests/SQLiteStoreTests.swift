import Foundation
import Testing
@testable import LatchkeyStore

/// Runs against real SQLite files in a fresh temporary folder.
@Suite("SQLite store")
struct SQLiteStoreTests {
    let path: String

    init() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-store-\(UUID().uuidString)")
        path = folder.appendingPathComponent("nested/latchkey.sqlite").path
    }

    static func user(_ name: String, handle: UInt8) -> UserRecord {
        UserRecord(handle: [UInt8](repeating: handle, count: 64), username: name, displayName: name.capitalized, createdAt: Date())
    }

    static func credential(_ id: UInt8, of user: UserRecord) -> CredentialRecord {
        CredentialRecord(
            id: [id, id, id], userHandle: user.handle, publicKey: [0xA5, 0x01], algorithm: -7, signCount: 0,
            transports: ["internal", "hybrid"], aaguid: [UInt8](repeating: 0, count: 16), attestationFormat: "none",
            attestationType: "none", backupEligible: true, backedUp: true, residentKey: true, userVerified: true,
            createdAt: Date())
    }

    @Test func registersUserWithCredentialAndReadsThemBack() async throws {
        let store = try SQLiteStore(path: path)
        let alice = Self.user("alice", handle: 1)
        try await store.register(Self.credential(7, of: alice), newUser: alice)
        #expect(try await store.user(named: "alice")?.handle == alice.handle)
        #expect(try await store.user(handle: alice.handle)?.username == "alice")
        let stored = try #require(try await store.credential(id: [7, 7, 7]))
        #expect(stored.transports == ["internal", "hybrid"])
        #expect(stored.residentKey == true)
        #expect(try await store.credentials(ofUser: alice.handle).count == 1)
    }

    @Test func reopeningKeepsDataAndSchema() async throws {
        let alice = Self.user("alice", handle: 1)
        try await SQLiteStore(path: path).register(Self.credential(7, of: alice), newUser: alice)
        let reopened = try SQLiteStore(path: path)
        #expect(try await reopened.user(named: "alice") != nil)
    }

    @Test func duplicateCredentialLeavesNoNewUserBehind() async throws {
        let store = try SQLiteStore(path: path)
        let alice = Self.user("alice", handle: 1)
        try await store.register(Self.credential(7, of: alice), newUser: alice)
        let bob = Self.user("bob", handle: 2)
        let error = await #expect(throws: StoreError.self) { try await store.register(Self.credential(7, of: bob), newUser: bob) }
        #expect(error?.code == .credentialAlreadyRegistered)
        #expect(try await store.user(named: "bob") == nil, "the transaction must roll back the new user")
    }

    @Test func racingFirstRegistrationsFromTwoConnectionsLeaveOneUser() async throws {
        let first = try SQLiteStore(path: path)
        let second = try SQLiteStore(path: path)
        let attempts = 20
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<attempts {
                let store = index.isMultiple(of: 2) ? first : second
                let user = Self.user("carol", handle: UInt8(index + 10))
                group.addTask {
                    do {
                        try await store.register(Self.credential(UInt8(index + 100), of: user), newUser: user)
                        return true
                    } catch let error as StoreError {
                        return error.code != .usernameTaken
                    } catch {
                        return true
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 1, "exactly one registration must win; the rest must see usernameTaken")
        let carol = try #require(try await first.user(named: "carol"))
        #expect(try await second.credentials(ofUser: carol.handle).count == 1)
    }

    @Test func pendingCeremonyIsTakenOnlyOnceAcrossConnections() async throws {
        let first = try SQLiteStore(path: path)
        let second = try SQLiteStore(path: path)
        let ceremony = PendingCeremony(
            challengeHash: [9, 9], kind: .authentication, userHandle: nil, username: nil, displayName: nil,
            userVerification: "required", bindingHash: [1], expiresAt: Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 60).rounded()))
        try await first.savePendingCeremony(ceremony)
        async let a = first.takePendingCeremony(challengeHash: [9, 9])
        async let b = second.takePendingCeremony(challengeHash: [9, 9])
        let results = try await [a, b]
        #expect(results.compactMap { $0 } == [ceremony])
        #expect(try await first.takePendingCeremony(challengeHash: [9, 9]) == nil)
    }

    @Test func sessionsExpireAndCanBeDeleted() async throws {
        let store = try SQLiteStore(path: path)
        let alice = Self.user("alice", handle: 1)
        try await store.register(Self.credential(7, of: alice), newUser: alice)
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded())
        let session = SessionRecord(tokenHash: [5], userHandle: alice.handle, createdAt: now, expiresAt: now.addingTimeInterval(10))
        try await store.createSession(session)
        #expect(try await store.session(tokenHash: [5], now: now) == session)
        #expect(try await store.session(tokenHash: [5], now: now.addingTimeInterval(11)) == nil)
        try await store.deleteSession(tokenHash: [5])
        #expect(try await store.session(tokenHash: [5], now: now) == nil)
    }

    @Test func signInUpdatesCounterBackupStateAndTime() async throws {
        let store = try SQLiteStore(path: path)
        let alice = Self.user("alice", handle: 1)
        try await store.register(Self.credential(7, of: alice), newUser: alice)
        let when = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(try await store.recordSignIn(credentialID: [7, 7, 7], previousSignCount: 0, signCount: 42, backedUp: false, at: when))
        let updated = try #require(try await store.credential(id: [7, 7, 7]))
        #expect(updated.signCount == 42)
        #expect(updated.backedUp == false)
        #expect(updated.lastUsedAt == when)
    }

    @Test func racingSignInsCannotBothMoveTheCounter() async throws {
        let store = try SQLiteStore(path: path)
        let alice = Self.user("alice", handle: 1)
        try await store.register(Self.credential(7, of: alice), newUser: alice)
        // Two sign-ins both read counter 0 and verified 42 and 41; only the first write may land.
        #expect(try await store.recordSignIn(credentialID: [7, 7, 7], previousSignCount: 0, signCount: 42, backedUp: true, at: Date()))
        #expect(try await store.recordSignIn(credentialID: [7, 7, 7], previousSignCount: 0, signCount: 41, backedUp: true, at: Date()) == false)
        #expect(try await store.credential(id: [7, 7, 7])?.signCount == 42)
    }

    @Test func textWithNULIsStoredWhole() async throws {
        let store = try SQLiteStore(path: path)
        let odd = Self.user("bob\u{0}evil", handle: 3)
        try await store.register(Self.credential(8, of: odd), newUser: odd)
        #expect(try await store.user(named: "bob") == nil)
        #expect(try await store.user(named: "bob\u{0}evil")?.handle == odd.handle)
        #expect(try await store.user(handle: odd.handle)?.username == "bob\u{0}evil")
    }

    @Test func purgeRemovesOnlyExpiredRows() async throws {
        let store = try SQLiteStore(path: path)
        let now = Date()
        for (hash, offset) in [([UInt8(1)], -1.0), ([UInt8(2)], 60.0)] {
            try await store.savePendingCeremony(PendingCeremony(
                challengeHash: hash, kind: .registration, userHandle: [1], username: "x", displayName: "x",
                userVerification: "preferred", bindingHash: nil, expiresAt: now.addingTimeInterval(offset)))
        }
        try await store.purgeExpired(now: now)
        #expect(try await store.takePendingCeremony(challengeHash: [1]) == nil)
        #expect(try await store.takePendingCeremony(challengeHash: [2]) != nil)
    }

    @Test func trustDetailsRoundTripAndRegressionsAreCounted() async throws {
        let store = try SQLiteStore(path: path)
        let alice = Self.user("alice", handle: 1)
        var credential = Self.credential(7, of: alice)
        credential.attestationTrusted = true
        credential.trustPath = [[0x30, 0x01, 0x02], [0x30, 0x03]]
        credential.credentialProtectionPolicy = 2
        try await store.register(credential, newUser: alice)
        try await store.recordSignCountRegression(credentialID: credential.id)
        try await store.recordSignCountRegression(credentialID: credential.id)
        let stored = try #require(try await store.credential(id: credential.id))
        #expect(stored.attestationTrusted)
        #expect(stored.trustPath == credential.trustPath)
        #expect(stored.credentialProtectionPolicy == 2)
        #expect(stored.signCountRegressions == 2)
    }

    @Test func firstSchemaVersionIsMigratedKeepingItsRows() async throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
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
        #expect(migrated.transports == ["usb"])
        #expect(migrated.attestationTrusted == false)
        #expect(migrated.trustPath.isEmpty)
        #expect(migrated.signCountRegressions == 0)
        let version = try SQLiteConnection(path: path).userVersion
        #expect(version == SQLiteSchema.migrations.count)
    }
}
