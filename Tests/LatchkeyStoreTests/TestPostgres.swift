import Foundation
import LatchkeyStore
import Logging
import PostgresNIO
import Synchronization
import Testing

@testable import LatchkeyStorePostgres

/// The PostgreSQL server the tests use. `LATCHKEY_TEST_POSTGRES_URL` names it, with a user who may
/// create databases: `scripts/postgres` starts a throwaway one and prints that URL, and
/// `scripts/test` runs every test that way. Each test gets a database of its own, made from the
/// URL's server and dropped when the test ends (in suites with ``ClosesTestDatabases``).
///
/// Without the variable, every PostgreSQL test fails saying how to run it;
/// `LATCHKEY_TEST_SKIP_POSTGRES=1` leaves them out instead, on purpose.
enum TestPostgres {
    static let urlVariable = "LATCHKEY_TEST_POSTGRES_URL"
    static let skipVariable = "LATCHKEY_TEST_SKIP_POSTGRES"

    /// Whether PostgreSQL tests are left out on purpose.
    static var skipped: Bool {
        ["1", "true", "yes"].contains(ProcessInfo.processInfo.environment[skipVariable]?.lowercased() ?? "")
    }

    struct NoServer: Error, CustomStringConvertible {
        var description: String {
            """
            the PostgreSQL tests need a server: run them with `scripts/postgres run swift test` (or `scripts/test`), \
            or set \(TestPostgres.urlVariable)=postgres://USER:PASSWORD@HOST:PORT/postgres for a user who may create \
            databases; set \(TestPostgres.skipVariable)=1 to leave them out
            """
        }
    }

    /// The test server, as the URL names it (its maintenance database), with a small pool.
    static func server() throws -> PostgresStore.Configuration {
        guard let url = ProcessInfo.processInfo.environment[urlVariable], !url.isEmpty else { throw NoServer() }
        var configuration = try PostgresStore.Configuration(url: url)
        configuration.maximumConnections = 4
        // A loaded machine may take seconds to hand out a connection (each test's database is new, and many tests
        // run at once): the tests ask what the store does, not how fast. A test of the deadline sets its own.
        configuration.leaseTimeout = .seconds(60)
        configuration.connectTimeout = .seconds(60)
        return configuration
    }

    /// A new, empty database on the test server, dropped when the test ends.
    static func makeDatabase() async throws -> PostgresStore.Configuration {
        var configuration = try server()
        let name = "latchkey_test_" + (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        try await withConnection(to: configuration) { connection in
            try await PostgresStore.execute(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), on: connection)
        }
        TestDatabases.current?.created(name)
        configuration.database = name
        return configuration
    }

    /// A migrated store on a new database, closed when the test ends.
    static func makeStore(webhooks: WebhookOutbox = .none) async throws -> PostgresStore {
        try await open(try await makeDatabase(), webhooks: webhooks)
    }

    /// Opens a store (migrating its database), closed when the test ends.
    static func open(_ configuration: PostgresStore.Configuration, webhooks: WebhookOutbox = .none) async throws -> PostgresStore {
        let store = try await PostgresStore.open(configuration, logger: logger, webhooks: webhooks)
        TestDatabases.current?.opened(store)
        return store
    }

    /// Runs `body` on a connection of its own to the configuration's database: for what the store
    /// itself does not do (writing rows it would not write, reading its bookkeeping).
    static func withConnection<T>(
        to configuration: PostgresStore.Configuration, _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        let connection = try await PostgresConnection.connect(
            configuration: try configuration.connectionConfiguration(), id: 1, logger: logger)
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Warnings and worse only: a migration on every test's new database would fill the output.
    static let logger: Logger = {
        var logger = Logger(label: "latchkey.tests.postgres")
        logger.logLevel = .warning
        return logger
    }()
}

/// The stores and databases one test case made, released when it ends.
final class TestDatabases: Sendable {
    @TaskLocal static var current: TestDatabases?

    private let made = Mutex<(stores: [PostgresStore], databases: [String])>(([], []))

    func opened(_ store: PostgresStore) {
        made.withLock { $0.stores.append(store) }
    }

    func created(_ database: String) {
        made.withLock { $0.databases.append(database) }
    }

    /// Closes the stores, then drops the databases (forcing out any connection left open).
    func release() async {
        let (stores, databases) = made.withLock { made in
            defer { made = ([], []) }
            return made
        }
        for store in stores { await store.close() }
        guard !databases.isEmpty, let server = try? TestPostgres.server() else { return }
        _ = try? await TestPostgres.withConnection(to: server) { connection in
            for database in databases {
                try await PostgresStore.execute(
                    PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(database) WITH (FORCE)"), on: connection)
            }
        }
    }
}

/// Closes the PostgreSQL stores each test case opened and drops the databases it created, so a
/// run leaves neither connections nor databases on the server.
struct ClosesTestDatabases: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    /// One scope per test case: parameterised cases run at once, each with its own databases.
    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let databases = TestDatabases()
        do {
            try await TestDatabases.$current.withValue(databases) { try await function() }
        } catch {
            await databases.release()
            throw error
        }
        await databases.release()
    }
}

extension Trait where Self == ClosesTestDatabases {
    static var closesTestDatabases: Self { Self() }
}
