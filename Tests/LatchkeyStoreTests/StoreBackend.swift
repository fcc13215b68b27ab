import Foundation
import LatchkeyStore
import LatchkeyStoreSQLite
import Testing

/// A store implementation the contract suite runs against: a name for test reports and a factory
/// that makes a fresh, empty store each time it is called.
struct StoreBackend: Sendable, CustomTestStringConvertible {
    let name: String
    /// A fresh store that writes a webhook delivery of each event for every receiver of the outbox.
    let makeWithOutbox: @Sendable (WebhookOutbox) async throws -> any LatchkeyStore

    /// Two instances on one fresh, empty database, as several servers share one store.
    let makePair: @Sendable (WebhookOutbox) async throws -> (any LatchkeyStore, any LatchkeyStore)

    /// A fresh store without webhook receivers.
    func make() async throws -> any LatchkeyStore { try await makeWithOutbox(.none) }

    var testDescription: String { name }

    /// Every backend; adding one is one line here. PostgreSQL needs a server
    /// (`LATCHKEY_TEST_POSTGRES_URL`, see ``TestPostgres``); its cases fail without one unless
    /// `LATCHKEY_TEST_SKIP_POSTGRES=1` leaves them out.
    static let all: [StoreBackend] = [
        StoreBackend(
            name: "SQLite", makeWithOutbox: { try SQLiteStore(path: TemporaryDatabase.newPath(), webhooks: $0) },
            makePair: { outbox in
                let path = TemporaryDatabase.newPath()
                // Each waits for the other's lock as long as a loaded machine may need: the tests ask who wins, not how fast.
                return (try SQLiteStore(path: path, webhooks: outbox, lockWait: .seconds(60)),
                        try SQLiteStore(path: path, webhooks: outbox, lockWait: .seconds(60)))
            }),
    ] + (TestPostgres.skipped ? [] : [
        StoreBackend(
            name: "PostgreSQL", makeWithOutbox: { try await TestPostgres.makeStore(webhooks: $0) },
            makePair: { outbox in
                let database = try await TestPostgres.makeDatabase()
                return (try await TestPostgres.open(database, webhooks: outbox), try await TestPostgres.open(database, webhooks: outbox))
            }),
    ])
}

/// Database files for tests, in one folder per test run that is removed when the process exits.
enum TemporaryDatabase {
    static let folder: URL = {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("latchkey-store-tests-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        atexit { try? FileManager.default.removeItem(at: TemporaryDatabase.folder) }
        return folder
    }()

    /// A path no database uses yet, inside a folder that does not exist yet.
    static func newPath() -> String {
        folder.appendingPathComponent("\(UUID().uuidString)/latchkey.sqlite").path
    }
}
