import LatchkeyServer
import LatchkeyStore
import LatchkeyStoreSQLite

/// Chooses and opens the store the configuration names: a file path is SQLite, the embedded
/// default; a `postgres://` URL names a PostgreSQL server (not in this release).
enum StoreBackend {
    static func open(_ configuration: LatchkeyConfiguration) throws -> any LatchkeyStore {
        let database = configuration.database
        if database.hasPrefix("postgres://") || database.hasPrefix("postgresql://") {
            throw ConfigurationError("database (LATCHKEY_DATABASE): PostgreSQL is not supported by this release; use a SQLite file path")
        }
        return try SQLiteStore(path: database)
    }
}
