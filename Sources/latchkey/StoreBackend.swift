import LatchkeyServer
import LatchkeyStore
import LatchkeyStorePostgres
import LatchkeyStoreSQLite
import Logging

/// Chooses and opens the store the configuration names: a `postgres://` (or `postgresql://`) URL
/// is a PostgreSQL database that several instances share; a file path is SQLite, the embedded
/// default.
enum StoreBackend {
    static func open(_ configuration: LatchkeyConfiguration, logger: Logger) async throws -> any LatchkeyStore {
        let database = configuration.database
        // Any URL (whatever its scheme's case) names a server, never a file: it must not become a
        // SQLite path, which would put its password into a folder name and error messages.
        guard let schemeEnd = database.range(of: "://") else {
            return try SQLiteStore(path: database)
        }
        let shown = ConfigurationRedaction.redactingURLPassword(database)
        let scheme = database[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw ConfigurationError(
                "database (LATCHKEY_DATABASE): \(shown) is a URL but not postgres://USER[:PASSWORD]@HOST:PORT/DATABASE; a file path means SQLite")
        }
        let settings: PostgresStore.Configuration
        do {
            settings = try PostgresStore.Configuration(url: database)
        } catch let error as StoreError {
            throw ConfigurationError("database (LATCHKEY_DATABASE): \(shown): \(error.message)")
        }
        return try await PostgresStore.open(settings, logger: logger)
    }
}
