import LatchkeyStore
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The shared store: one PostgreSQL database that several Latchkey instances use at once. Every
/// call is one statement or one transaction, so what one instance writes the others see at once,
/// and races between instances are settled by the database (a challenge is taken by one
/// `DELETE ... RETURNING`, a sign counter moves by one compare-and-set `UPDATE`).
///
/// ``open(_:logger:)`` connects, migrates the schema and starts the connection pool, so an
/// unreachable server or a schema from a newer Latchkey fails before the server listens. As a
/// `Service`, ``run()`` waits for graceful shutdown and then closes the pool: list the store before
/// the HTTP server in a `ServiceGroup`, so it shuts down after the server has drained.
public final class PostgresStore: LatchkeyStore {
    let configuration: Configuration
    let client: PostgresClient
    let logger: Logger
    /// The task running the pool; nil once the store is closed.
    private let pool: Mutex<Task<Void, Never>?>

    /// Connects to the server, applies the migrations it has not seen yet (once, even when several
    /// instances start together) and starts the connection pool. Throws a ``StoreError`` naming the
    /// server, never the password, when it cannot connect within the configured timeout.
    public static func open(_ configuration: Configuration, logger: Logger = Logger(label: "latchkey.postgres")) async throws -> PostgresStore {
        try await PostgresSchema.migrate(configuration, logger: logger)
        return PostgresStore(configuration: configuration, logger: logger)
    }

    private init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        let client = PostgresClient(configuration: configuration.clientConfiguration, backgroundLogger: logger)
        self.client = client
        // Detached: the pool lives as long as the store, not as the caller's task (nor does it
        // inherit the caller's graceful-shutdown handler); ``close()`` ends it.
        pool = Mutex(Task.detached { await client.run() })
    }

    deinit {
        pool.withLock { $0?.cancel() }
    }

    /// Waits for graceful shutdown (or cancellation), then closes the pool.
    public func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            // Cancelled: the service group is going away; close all the same.
        }
        await close()
    }

    /// Closes every connection; every later call throws. Closing twice does nothing.
    public func close() async {
        let running = pool.withLock { pool in
            defer { pool = nil }
            return pool
        }
        guard let running else { return }
        running.cancel()
        await running.value
    }

    // MARK: Running statements

    /// Runs `body` with a pooled connection, turning every failure into a ``StoreError``.
    func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        guard pool.withLock({ $0 != nil }) else { throw StoreError(.database, "the store is closed") }
        do {
            return try await client.withConnection { connection in try await body(connection) }
        } catch {
            throw storeError(error)
        }
    }

    /// Runs `body` inside `BEGIN ... COMMIT` on one pooled connection, rolling back if it throws.
    func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await withConnection { connection in try await Self.transaction(on: connection, body) }
    }

    /// Runs `body` inside `BEGIN ... COMMIT` on `connection`, rolling back if it throws.
    static func transaction<T>(on connection: PostgresConnection, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await execute("BEGIN", on: connection)
        do {
            let result = try await body(connection)
            try await execute("COMMIT", on: connection)
            return result
        } catch {
            // A broken connection cannot roll back, and the server ends its transaction anyway.
            try? await execute("ROLLBACK", on: connection)
            throw error
        }
    }

    /// Runs one statement on a pooled connection and reads every row it returns with `read`.
    func rows<T: Sendable>(_ query: PostgresQuery, _ read: (inout ColumnReader) throws -> T) async throws -> [T] {
        try await withConnection { connection in try await Self.rows(query, on: connection, read) }
    }

    /// Runs one statement on a pooled connection and reads its first row, if any, with `read`.
    func firstRow<T: Sendable>(_ query: PostgresQuery, _ read: (inout ColumnReader) throws -> T) async throws -> T? {
        try await rows(query, read).first
    }

    /// Runs one statement that returns no rows on a pooled connection.
    func execute(_ query: PostgresQuery) async throws {
        try await withConnection { connection in try await Self.execute(query, on: connection) }
    }

    /// Runs one statement on `connection` and reads every row it returns with `read`.
    static func rows<T>(
        _ query: PostgresQuery, on connection: PostgresConnection, _ read: (inout ColumnReader) throws -> T
    ) async throws -> [T] {
        var results: [T] = []
        for try await row in try await connection.query(query, logger: silent) {
            var columns = ColumnReader(row)
            results.append(try read(&columns))
        }
        return results
    }

    /// Runs one statement that returns no rows on `connection`.
    static func execute(_ query: PostgresQuery, on connection: PostgresConnection) async throws {
        for try await _ in try await connection.query(query, logger: silent) {}
    }

    /// Statements log nothing: their binds hold credentials and session tokens.
    static let silent = Logger(label: "latchkey.postgres.statements", factory: { _ in SwiftLogNoOpLogHandler() })
}
