import LatchkeyServer
import LatchkeyStore
import LatchkeyStoreSQLite

/// Chooses and opens the store the configuration names: a file path is SQLite, the embedded
/// default; a URL such as `postgres://…` names a database server (not in this release).
enum StoreBackend {
    static func open(_ configuration: LatchkeyConfiguration) throws -> any LatchkeyStore {
        let database = configuration.database
        // Any URL (whatever its scheme's case) names a server, never a file: it must not become a
        // SQLite path, which would put its password into a folder name and error messages.
        if database.contains("://") {
            throw ConfigurationError(
                "database (LATCHKEY_DATABASE): \(ConfigurationRedaction.redactingURLPassword(database)) is a URL; this release stores data in SQLite only: use a file path")
        }
        return try SQLiteStore(path: database)
    }
}
