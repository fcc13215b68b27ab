import Foundation
import LatchkeyConfiguration
import LatchkeyService
import LatchkeyStore
import LatchkeyStorePostgres
import LatchkeyStoreSQLite
import Logging
import NIOCore
import NIOPosix

/// Chooses and opens the store the configuration names: a `postgres://` (or `postgresql://`) URL
/// is a PostgreSQL database that several instances share; a file path is SQLite, the embedded
/// default. A SQLite call waits up to `sqliteLockWait` for another process's lock, holding its
/// thread: a one-off command may; `serve` waits not at all, and makes a busy call again without
/// holding its event loop (the service's `StoreCallPolicy`).
enum StoreBackend {
    static func open(
        _ configuration: LatchkeyConfiguration, logger: Logger, eventLoops: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        sqliteLockWait: Duration = .seconds(5)
    ) async throws -> any LatchkeyStore {
        let database = configuration.database
        // Every process that writes events writes their deliveries too, the admin commands included.
        let webhooks = configuration.webhookOutbox
        // Any URL (whatever its scheme's case) names a server, never a file: it must not become a
        // SQLite path, which would put its password into a folder name and error messages.
        guard let schemeEnd = database.range(of: "://") else {
            if let problem = sqliteWritabilityProblem(database) { throw ConfigurationError(problem) }
            return try SQLiteStore(path: database, webhooks: webhooks, lockWait: sqliteLockWait)
        }
        var settings = try postgresSettings(database, schemeEnd: schemeEnd)
        if let warning = settings.transportWarning { logger.warning("\(warning)") }
        settings.leaseTimeout = RelyingPartyService.storeDeadline(configuration)
        settings.lockTimeout = RelyingPartyService.storeDeadline(configuration)
        // A fixed-size pool, opened at start: no connection ever arms an idle timer.
        settings.minimumConnections = settings.maximumConnections
        return try await PostgresStore.open(settings, logger: logger, eventLoops: eventLoops, webhooks: webhooks)
    }

    /// Closes a store opened for a one-off command.
    static func close(_ store: any LatchkeyStore) async {
        switch store {
        case let store as SQLiteStore: store.close()
        case let store as PostgresStore: await store.close()
        default: break
        }
    }

    /// What `check-config` says of the store, after reaching a PostgreSQL server and reading its
    /// schema version (changing nothing). A SQLite file is created or migrated at start-up.
    static func check(_ configuration: LatchkeyConfiguration) async throws -> String {
        let database = configuration.database
        guard let schemeEnd = database.range(of: "://") else {
            if let problem = sqliteWritabilityProblem(database) { throw ConfigurationError(problem) }
            return "database: SQLite at \(database)"
        }
        let settings = try postgresSettings(database, schemeEnd: schemeEnd)
        warn(settings.transportWarning.map { [$0] } ?? [])
        let shown = ConfigurationRedaction.redactingURLPassword(database)
        let versions: (database: Int, latest: Int)
        do {
            versions = try await PostgresStore.schemaVersions(settings)
        } catch let error as StoreError {
            throw ConfigurationError("database (LATCHKEY_DATABASE): \(error.message)")
        }
        guard versions.database <= versions.latest else {
            throw ConfigurationError(
                "database (LATCHKEY_DATABASE): \(shown) has schema version \(versions.database), newer than this Latchkey (\(versions.latest))")
        }
        let pending = versions.latest - versions.database
        return "database: PostgreSQL at \(settings.server) reachable, schema version \(versions.database) of \(versions.latest)"
            + (pending == 0 ? "" : " (start-up applies \(pending) migration\(pending == 1 ? "" : "s"))")
    }

    /// Why this process could not make, or write, the SQLite file at `path` and the journal files SQLite keeps beside it
    /// (checked as the user it runs as, so a unit's `ExecStartPre=latchkey check-config` checks the service user's
    /// rights); nil when it can. Before, `serve` stopped with Foundation's raw error dump (`NSCocoaErrorDomain Code=513`).
    static func sqliteWritabilityProblem(_ path: String) -> String? {
        let user = "this user (\(ProcessInfo.processInfo.userName), uid \(getuid()))"
        let file = URL(fileURLWithPath: path)
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            if isFolder.boolValue { return "database (LATCHKEY_DATABASE): \(path) is a folder; name a file in it, such as \(path)/latchkey.sqlite" }
            if access(path, R_OK | W_OK) != 0 {
                return "database (LATCHKEY_DATABASE): \(path) cannot be read and written by \(user); make it theirs (chown) or run as its owner"
            }
        }
        // SQLite writes its journal beside the file, and the folders up to it are made when missing: the nearest
        // folder that exists must take new files.
        var folder = file.deletingLastPathComponent()
        var status = stat()
        while stat(folder.path, &status) != 0 {
            guard errno == ENOENT, folder.path != "/" else {
                return "database (LATCHKEY_DATABASE): \(path) cannot be reached by \(user): \(folder.path): \(String(cString: strerror(errno))); "
                    + "let them into the folders above it, or choose a path they can write"
            }
            folder = folder.deletingLastPathComponent()
        }
        guard access(folder.path, W_OK | X_OK) == 0 else {
            let missing = folder.path == file.deletingLastPathComponent().path ? "" : " (which would hold the folders to make for it)"
            return "database (LATCHKEY_DATABASE): \(path) cannot be made or written by \(user): the folder \(folder.path)\(missing) "
                + "does not let them create files; make it theirs (chown), or choose a path they can write"
        }
        return nil
    }

    private static func postgresSettings(_ database: String, schemeEnd: Range<String.Index>) throws -> PostgresStore.Configuration {
        let shown = ConfigurationRedaction.redactingURLPassword(database)
        let scheme = database[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw ConfigurationError(
                "database (LATCHKEY_DATABASE): \(shown) is a URL but not postgres://USER[:PASSWORD]@HOST:PORT/DATABASE; a file path means SQLite")
        }
        do {
            return try PostgresStore.Configuration(url: database)
        } catch let error as StoreError {
            throw ConfigurationError("database (LATCHKEY_DATABASE): \(shown): \(error.message)")
        }
    }
}
