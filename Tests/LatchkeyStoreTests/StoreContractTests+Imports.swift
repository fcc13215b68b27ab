import Foundation
import LatchkeyStore
import Testing

/// The contract for accounts moved in: each written whole or not at all, a second import of the same account writes
/// nothing, a name or passkey of another account refuses it, and its statistics are the ones a rebuild from the
/// events gives.
extension StoreContractTests {
    static func imported(_ name: String, handle: UInt8, passkeys: [UInt8], contact: UserContact? = nil) -> ImportedAccount {
        let user = Fixtures.user(name, handle: handle)
        return ImportedAccount(
            user: user, credentials: passkeys.map { Fixtures.credential($0, of: user, signCount: 41) }, contact: contact,
            groups: ["staff", "ops"])
    }

    static func importEvent(_ account: ImportedAccount, _ tag: Int) -> SecurityEvent {
        var event = Self.event(.accountImported, tag, user: account.user)
        event.detail = EventStatistics.importedDetail(passkeys: account.credentials.count)
        return event
    }

    @Test(arguments: StoreBackend.all)
    func anImportedAccountIsWrittenWholeOnceAndNeverTakesAnotherAccountsPasskey(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let ana = Self.imported("ana", handle: 1, passkeys: [11, 12], contact: UserContact(kind: .email, value: "ana@example.com"))
        #expect(try await store.importAccount(ana, recording: [Self.importEvent(ana, 1)]) == .imported)
        let stored = try #require(try await store.userWithCredentials(named: "ana"))
        #expect(stored.user == ana.user && Set(stored.credentials.map(\.id)) == Set(ana.credentials.map(\.id)))
        #expect(stored.credentials.allSatisfy { $0.signCount == 41 }, "the counter comes as it was")
        #expect(try await store.contact(ofUser: ana.user.handle) == ana.contact)
        #expect(try await store.groups(ofUser: ana.user.handle) == ["ops", "staff"])

        // The same account again: nothing written, no event.
        #expect(try await store.importAccount(ana, recording: [Self.importEvent(ana, 2)]) == .unchanged)
        #expect(try await store.securityEvent(id: Self.importEvent(ana, 2).id) == nil)

        // Clashes, each refused with nothing written.
        var changed = ana
        changed.credentials.removeLast()
        let clashes: [(ImportedAccount, String)] = [
            (changed, "other data"),
            (Self.imported("ana", handle: 2, passkeys: [21]), "username"),
            (Self.imported("bob", handle: 3, passkeys: [31, 12]), "another account's passkey"),
        ]
        for (index, (account, reason)) in clashes.enumerated() {
            guard case .refused(let message) = try await store.importAccount(account, recording: [Self.importEvent(account, 10 + index)]) else {
                Issue.record("\(account.user.username) was not refused")
                continue
            }
            #expect(message.contains(reason), "\(message)")
            #expect(try await store.securityEvent(id: Self.importEvent(account, 10 + index).id) == nil)
        }
        #expect(try await store.user(named: "bob") == nil)
        #expect(try await store.credential(id: Fixtures.bytes(31, count: 16)) == nil, "bob's first passkey is not written without him")
        #expect(try await store.credentials(ofUser: ana.user.handle).count == 2)
    }

    @Test(arguments: StoreBackend.all)
    func importsCountTheirUsersAndPasskeyHoldersAsARebuildDoes(backend: StoreBackend) async throws {
        let store = try await backend.make()
        let accounts = [Self.imported("ana", handle: 1, passkeys: [11, 12]), Self.imported("bob", handle: 2, passkeys: []),
                        Self.imported("cy", handle: 3, passkeys: [31])]
        for (index, account) in accounts.enumerated() {
            #expect(try await store.importAccount(account, recording: [Self.importEvent(account, index)]) == .imported)
        }
        let day = StatisticsDay(Fixtures.now)
        let live = try await store.statistics(from: day, through: day)
        #expect(live.rows.filter { $0.metric == .users }.reduce(0) { $0 + $1.count } == 3)
        #expect(live.rows.filter { $0.metric == .usersWithPasskey }.reduce(0) { $0 + $1.count } == 2, "bob holds none")
        let rebuilt = try await store.rebuildStatistics()
        #expect(rebuilt.usersCorrection == 0 && rebuilt.usersWithPasskeyCorrection == 0)
        #expect(try await store.statistics(from: day, through: day) == live)
    }
}
