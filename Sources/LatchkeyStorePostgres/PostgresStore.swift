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
    /// Where each event written goes: one pending delivery per receiver.
    let webhooks: WebhookOutbox
    let client: PostgresClient
    /// The loops of the pool's connections, whose timers bound each wait for a connection.
    private let eventLoops: any EventLoopGroup
    /// The task running the pool, shared by every store ``applying(_:)`` made from this one.
    private let pool: PoolTask
    /// How each call is made: retried while busy, timed.
    let policy: StoreCallPolicy
    /// Whose records every call reads and writes: bound as `tenant = $n` in each statement.
    public let tenant: TenantID
    /// This instance's name among those sharing the database (host, process, and which store of the process):
    /// the challenges it stores carry it (``SharedLimitsStore``).
    public let instance: String

    /// Connects to the server, applies the migrations it has not seen yet (once, even when several
    /// instances start together) and starts the connection pool. Throws a ``StoreError`` naming the
    /// server, never the password, when it cannot connect within the configured timeout.
    /// The pool's connections live on `eventLoops` (the loops that serve requests, so that a
    /// query's reply resumes its request on the loop it runs on).
    public static func open(
        _ configuration: Configuration, logger: Logger = Logger(label: "latchkey.postgres"),
        eventLoops: any EventLoopGroup = PostgresClient.defaultEventLoopGroup, webhooks: WebhookOutbox = .none
    ) async throws -> PostgresStore {
        try await PostgresSchema.migrate(configuration, logger: logger)
        return await PostgresStore(configuration: configuration, logger: logger, eventLoops: eventLoops, webhooks: webhooks)
    }

    /// Reaches the server and reads the schema version of its database (0 before the first start)
    /// beside the version this Latchkey migrates to, changing nothing.
    public static func schemaVersions(_ configuration: Configuration) async throws -> (database: Int, latest: Int) {
        (try await PostgresSchema.version(configuration), PostgresSchema.migrations.count)
    }

    private init(configuration: Configuration, logger: Logger, eventLoops: any EventLoopGroup, webhooks: WebhookOutbox) async {
        self.configuration = configuration
        self.webhooks = webhooks
        self.eventLoops = eventLoops
        policy = .direct
        tenant = .default
        instance = Self.newInstanceName()
        // The pool logs every failed connection attempt at info, several a second while the server
        // is down; each failed call logs its own error already.
        var poolLogger = logger
        poolLogger.logLevel = max(logger.logLevel, .warning)
        let client = PostgresClient(configuration: configuration.clientConfiguration, eventLoopGroup: eventLoops, backgroundLogger: poolLogger)
        self.client = client
        // Detached: the pool lives as long as the store, not as the caller's task (nor does it
        // inherit the caller's graceful-shutdown handler); ``close()`` ends it. The store is handed out once the
        // task is about to enter `run()`, which marks the pool running before it first suspends: a first call that
        // still finds it not running (postgres-nio's "run() hasn't been called yet", logged at every start before)
        // would have to be made in the few instructions between.
        let (entered, signal) = AsyncStream.makeStream(of: Void.self)
        pool = PoolTask(Task.detached {
            signal.finish()
            await client.run()
        })
        for await _ in entered {}
    }

    private init(sharing store: PostgresStore, policy: StoreCallPolicy, tenant: TenantID, webhooks: WebhookOutbox? = nil) {
        configuration = store.configuration
        self.webhooks = webhooks ?? store.webhooks
        client = store.client
        eventLoops = store.eventLoops
        pool = store.pool
        instance = store.instance
        self.policy = policy
        self.tenant = tenant
    }

    public func applying(_ policy: StoreCallPolicy) -> any LatchkeyStore { PostgresStore(sharing: self, policy: policy, tenant: tenant) }

    /// The same store (its pool and call policy shared) reading and writing `tenant`'s records only, its events
    /// delivered to `webhooks`. Purges, the health check and the live record counts span every tenant.
    public func scoped(to tenant: TenantID, webhooks: WebhookOutbox) -> any LatchkeyStore {
        PostgresStore(sharing: self, policy: policy, tenant: tenant, webhooks: webhooks)
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
        let running = pool.task.withLock { pool in
            defer { pool = nil }
            return pool
        }
        guard let running else { return }
        running.cancel()
        await running.value
    }

    // MARK: Running statements

    /// Runs `body` with a pooled connection under the ``policy``: every store call enters here once,
    /// and `function` names it. See ``leasingConnection(_:)``.
    func withConnection<T: Sendable>(
        _ function: String = #function, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await policy.call(function) { try await leasingConnection(body) }
    }

    /// Runs `body` with a pooled connection, turning every failure into a ``StoreError``. Waits at
    /// most the lease timeout (2 s unless configured) for a connection: while the server is down the
    /// pool keeps trying, and a request must fail (503) before a load balancer's check gives up. Once `body` has
    /// started it runs to the end; a `body` that never starts writes nothing.
    ///
    /// The call runs as a task of its own so that the deadline, a timer on an event loop, can cancel
    /// it while it waits for its connection. (A task group racing the call against a sleeping task
    /// cost two child tasks and a Dispatch timer per call, BENCHMARKS.md.)
    /// Outside the ``policy``: for a call made of several steps (a purge in batches), which applies
    /// the policy once around them all.
    func leasingConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        guard pool.task.withLock({ $0 != nil }) else { throw StoreError(.unavailable, "the store is closed") }
        let deadline = LeaseDeadline()
        let call = Task { [client] in
            try await client.withConnection { connection in
                guard deadline.start() else { throw deadline.expired }
                return try await body(connection)
            }
        }
        let timer = eventLoops.any().scheduleTask(in: TimeAmount(configuration.leaseTimeout)) {
            if deadline.expire() { call.cancel() }
        }
        defer { timer.cancel() }
        do {
            return try await withTaskCancellationHandler {
                try await call.value
            } onCancel: {
                call.cancel()
            }
        } catch {
            if deadline.hasExpired {
                throw StoreError(.unavailable, "no connection to PostgreSQL at \(configuration.server) within \(configuration.leaseTimeout)")
            }
            throw storeError(error)
        }
    }

    /// Runs `body` inside `BEGIN ... COMMIT` on one pooled connection, rolling back if it throws.
    func transaction<T: Sendable>(
        _ function: String = #function, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await withConnection(function) { connection in try await Self.transaction(on: connection, body) }
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
    func rows<T: Sendable>(
        _ query: PostgresQuery, function: String = #function, _ read: @escaping @Sendable (inout ColumnReader) throws -> T
    ) async throws -> [T] {
        try await withConnection(function) { connection in try await Self.rows(query, on: connection, read) }
    }

    /// Runs one statement on a pooled connection and reads its first row, if any, with `read`.
    func firstRow<T: Sendable>(
        _ query: PostgresQuery, function: String = #function, _ read: @escaping @Sendable (inout ColumnReader) throws -> T
    ) async throws -> T? {
        try await rows(query, function: function, read).first
    }

    /// Runs one statement that returns no rows on a pooled connection.
    func execute(_ query: PostgresQuery, function: String = #function) async throws {
        try await withConnection(function) { connection in try await Self.execute(query, on: connection) }
    }

    /// Runs a prepared statement (see ``SignInStatements``) on a pooled connection and returns its rows.
    func rows<Statement: PostgresPreparedStatement>(_ statement: Statement, function: String = #function) async throws -> [Statement.Row]
    where Statement.Row: Sendable {
        try await withConnection(function) { connection in
            var rows: [Statement.Row] = []
            for try await row in try await Self.send(statement, on: connection) {
                rows.append(row)
            }
            return rows
        }
    }

    /// Runs a prepared statement that returns no rows on a pooled connection.
    func execute<Statement: PostgresPreparedStatement>(_ statement: Statement, function: String = #function) async throws
    where Statement.Row == () {
        try await withConnection(function) { connection in
            for try await _ in try await Self.send(statement, on: connection) {}
        }
    }

    /// Runs one statement on `connection` and reads every row it returns with `read`.
    static func rows<T>(
        _ query: PostgresQuery, on connection: PostgresConnection, _ read: (inout ColumnReader) throws -> T
    ) async throws -> [T] {
        var results: [T] = []
        for try await row in try await send(query, on: connection) {
            var columns = ColumnReader(row)
            results.append(try read(&columns))
        }
        return results
    }

    /// Runs one statement that returns no rows on `connection`.
    static func execute(_ query: PostgresQuery, on connection: PostgresConnection) async throws {
        for try await _ in try await send(query, on: connection) {}
    }

    /// Sends `query` on `connection`: every statement of a store call leaves through here or through
    /// ``send(_:on:)-(Statement,_)``, which is where ``statementLog`` notes them.
    static func send(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> PostgresRowSequence {
        statementLog?.record(SentStatement(query: query, isPrepared: false))
        return try await connection.query(query, logger: silent)
    }

    /// Sends the prepared `statement` on `connection`.
    static func send<Statement: PostgresPreparedStatement>(
        _ statement: Statement, on connection: PostgresConnection
    ) async throws -> AsyncThrowingMapSequence<PostgresRowSequence, Statement.Row> {
        if let statementLog {
            statementLog.record(SentStatement(query: PostgresQuery(unsafeSQL: Statement.sql, binds: try statement.makeBindings()), isPrepared: true))
        }
        return try await connection.execute(statement, logger: silent)
    }

    /// While a task runs with a log here, every statement it sends is noted in it (the planner test's).
    @TaskLocal static var statementLog: StatementLog<SentStatement>?

    /// Statements log nothing: their binds hold credentials and session tokens.
    static let silent = Logger(label: "latchkey.postgres.statements", factory: { _ in SwiftLogNoOpLogHandler() })
}

/// A statement as sent: its text and binds, and whether it was prepared by name (and so may be planned
/// once for every value) or sent unnamed (planned for its values).
struct SentStatement: Hashable, Sendable {
    let query: PostgresQuery
    let isPrepared: Bool
}

/// A tenant is bound as text.
extension TenantID: PostgresNonThrowingEncodable {
    public static var psqlType: PostgresDataType { .text }
    public static var psqlFormat: PostgresFormat { .binary }
    public func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeString(rawValue)
    }
}

/// The task running the connection pool, cancelled when the last store sharing it goes.
private final class PoolTask: Sendable {
    /// Nil once the store is closed.
    let task: Mutex<Task<Void, Never>?>
    init(_ task: Task<Void, Never>) { self.task = Mutex(task) }
    deinit { task.withLock { $0?.cancel() } }
}

/// Settles the race between a call getting its connection and its deadline: exactly one wins.
private final class LeaseDeadline: Sendable {
    private enum State { case waiting, started, expired }
    private let state = Mutex(State.waiting)

    /// The error the call gets when the deadline won (the caller sees an unavailable store).
    let expired = CancellationError()

    /// The connection came: true when the call may run, false when the deadline passed first.
    func start() -> Bool {
        state.withLock { state in
            guard state == .waiting else { return false }
            state = .started
            return true
        }
    }

    /// The deadline passed: true when the call had not started, so it never will.
    func expire() -> Bool {
        state.withLock { state in
            guard state == .waiting else { return false }
            state = .expired
            return true
        }
    }

    /// Whether the deadline passed before the call got its connection.
    var hasExpired: Bool { state.withLock { $0 == .expired } }
}
