import LatchkeyStore

/// The SQLite schema, as numbered migrations: migration N brings `user_version` from N-1 to N.
/// Never edit a released migration; append a new one.
enum SQLiteSchema {
    static let migrations: [String] = [
        """
        CREATE TABLE users (
            handle BLOB PRIMARY KEY,
            username TEXT NOT NULL UNIQUE,
            display_name TEXT NOT NULL,
            created_at REAL NOT NULL
        );
        CREATE TABLE credentials (
            id BLOB PRIMARY KEY,
            user_handle BLOB NOT NULL REFERENCES users(handle) ON DELETE CASCADE,
            public_key BLOB NOT NULL,
            algorithm INTEGER NOT NULL,
            sign_count INTEGER NOT NULL,
            transports TEXT NOT NULL,
            aaguid BLOB NOT NULL,
            attestation_format TEXT NOT NULL,
            attestation_type TEXT NOT NULL,
            backup_eligible INTEGER NOT NULL,
            backed_up INTEGER NOT NULL,
            resident_key INTEGER,
            user_verified INTEGER NOT NULL,
            created_at REAL NOT NULL,
            last_used_at REAL
        );
        CREATE INDEX credentials_by_user ON credentials(user_handle);
        CREATE TABLE pending_ceremonies (
            challenge_hash BLOB PRIMARY KEY,
            kind TEXT NOT NULL,
            user_handle BLOB,
            username TEXT,
            display_name TEXT,
            user_verification TEXT NOT NULL,
            binding_hash BLOB,
            expires_at REAL NOT NULL
        );
        CREATE INDEX pending_ceremonies_by_expiry ON pending_ceremonies(expires_at);
        CREATE TABLE sessions (
            token_hash BLOB PRIMARY KEY,
            user_handle BLOB NOT NULL REFERENCES users(handle) ON DELETE CASCADE,
            created_at REAL NOT NULL,
            expires_at REAL NOT NULL
        );
        CREATE INDEX sessions_by_expiry ON sessions(expires_at);
        """,
        """
        ALTER TABLE credentials ADD COLUMN attestation_trusted INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE credentials ADD COLUMN trust_path TEXT NOT NULL DEFAULT '';
        ALTER TABLE credentials ADD COLUMN cred_protect INTEGER;
        ALTER TABLE credentials ADD COLUMN sign_count_regressions INTEGER NOT NULL DEFAULT 0;
        """,
        """
        ALTER TABLE credentials ADD COLUMN name TEXT;
        CREATE INDEX pending_ceremonies_by_user ON pending_ceremonies(user_handle) WHERE user_handle IS NOT NULL;
        CREATE TABLE secrets (
            name TEXT PRIMARY KEY,
            value BLOB NOT NULL
        );
        """,
        """
        ALTER TABLE users ADD COLUMN external_id TEXT;
        CREATE UNIQUE INDEX users_by_external_id ON users(external_id) WHERE external_id IS NOT NULL;
        ALTER TABLE pending_ceremonies ADD COLUMN enrollment_ticket_hash BLOB;
        ALTER TABLE pending_ceremonies ADD COLUMN conditional INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE admin_keys (
            name TEXT PRIMARY KEY,
            key_hash BLOB NOT NULL UNIQUE,
            created_at REAL NOT NULL,
            last_used_at REAL
        );
        CREATE TABLE enrollment_tickets (
            hash BLOB PRIMARY KEY,
            user_handle BLOB NOT NULL REFERENCES users(handle) ON DELETE CASCADE,
            created_at REAL NOT NULL,
            expires_at REAL NOT NULL,
            used_at REAL,
            revoked_at REAL
        );
        CREATE INDEX enrollment_tickets_by_user ON enrollment_tickets(user_handle);
        CREATE INDEX enrollment_tickets_by_expiry ON enrollment_tickets(expires_at);
        CREATE TABLE signing_keys (
            generation INTEGER PRIMARY KEY,
            key_id TEXT NOT NULL UNIQUE,
            private_key BLOB NOT NULL,
            created_at REAL NOT NULL,
            signs_from REAL NOT NULL
        );
        CREATE TABLE device_keys (
            id BLOB PRIMARY KEY,
            user_handle BLOB NOT NULL REFERENCES users(handle) ON DELETE CASCADE,
            public_key BLOB NOT NULL,
            name TEXT,
            created_at REAL NOT NULL,
            last_used_at REAL
        );
        CREATE INDEX device_keys_by_user ON device_keys(user_handle);
        CREATE TABLE store_health (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            checked_at REAL NOT NULL
        );
        """,
        // 5: App Attest keys, and the one that vouched for a device key's enrollment.
        """
        CREATE TABLE app_attest_keys (
            key_id BLOB PRIMARY KEY,
            public_key BLOB NOT NULL,
            app_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            receipt BLOB NOT NULL,
            counter INTEGER NOT NULL,
            created_at REAL NOT NULL,
            last_used_at REAL
        );
        ALTER TABLE device_keys ADD COLUMN app_attest_key_id BLOB;
        """,
        // 6: the two tables every ceremony writes, keyed by their hashes alone (WITHOUT ROWID: one
        // b-tree each instead of a table and its key index), and pending ceremonies without an
        // expiry index (the table holds minutes of challenges; the purge and the count scan it).
        // Each sign-in then writes 9 WAL pages instead of 12.
        """
        CREATE TABLE pending_ceremonies_v6 (
            challenge_hash BLOB NOT NULL PRIMARY KEY,
            kind TEXT NOT NULL,
            user_handle BLOB,
            username TEXT,
            display_name TEXT,
            user_verification TEXT NOT NULL,
            binding_hash BLOB,
            expires_at REAL NOT NULL,
            enrollment_ticket_hash BLOB,
            conditional INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        INSERT INTO pending_ceremonies_v6
            SELECT challenge_hash, kind, user_handle, username, display_name, user_verification, binding_hash, expires_at,
                enrollment_ticket_hash, conditional
            FROM pending_ceremonies;
        DROP TABLE pending_ceremonies;
        ALTER TABLE pending_ceremonies_v6 RENAME TO pending_ceremonies;
        CREATE INDEX pending_ceremonies_by_user ON pending_ceremonies(user_handle) WHERE user_handle IS NOT NULL;
        CREATE TABLE sessions_v6 (
            token_hash BLOB NOT NULL PRIMARY KEY,
            user_handle BLOB NOT NULL REFERENCES users(handle) ON DELETE CASCADE,
            created_at REAL NOT NULL,
            expires_at REAL NOT NULL
        ) WITHOUT ROWID;
        INSERT INTO sessions_v6 SELECT token_hash, user_handle, created_at, expires_at FROM sessions;
        DROP TABLE sessions;
        ALTER TABLE sessions_v6 RENAME TO sessions;
        CREATE INDEX sessions_by_expiry ON sessions(expires_at);
        """,
        // 7: the audit log, and the webhook outbox written in the same transactions. Events have
        // no time index: every sign-in writes one, and the purge walks them oldest first by sequence.
        """
        CREATE TABLE security_events (
            sequence INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            type TEXT NOT NULL,
            occurred_at REAL NOT NULL,
            user_handle BLOB,
            username TEXT,
            credential_id BLOB,
            aaguid BLOB,
            authenticator_name TEXT,
            client_address TEXT,
            user_agent TEXT,
            request_id TEXT,
            actor TEXT NOT NULL,
            detail TEXT
        );
        CREATE INDEX security_events_by_user ON security_events(user_handle, sequence) WHERE user_handle IS NOT NULL;
        CREATE TABLE webhook_deliveries (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            event_id TEXT NOT NULL,
            receiver TEXT NOT NULL,
            ordering_key BLOB NOT NULL,
            state TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL,
            next_attempt_at REAL NOT NULL,
            retry_until REAL NOT NULL,
            lease_owner TEXT,
            lease_until REAL,
            delivered_at REAL,
            last_error TEXT
        );
        CREATE INDEX webhook_deliveries_pending ON webhook_deliveries(receiver, ordering_key, id) WHERE state = 'pending';
        CREATE INDEX webhook_deliveries_by_state ON webhook_deliveries(state, id);
        CREATE INDEX webhook_deliveries_by_creation ON webhook_deliveries(created_at);
        """,
        // 0.9: the nonce a client asks the ceremony's token to carry.
        """
        ALTER TABLE pending_ceremonies ADD COLUMN nonce TEXT;
        """,
        // 0.9: an account the backend disabled.
        """
        ALTER TABLE users ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;
        """,
        // 0.9: the device key a session signed in with, whose removal ends it.
        """
        ALTER TABLE sessions ADD COLUMN device_key_id BLOB;
        CREATE INDEX sessions_by_device_key ON sessions(device_key_id) WHERE device_key_id IS NOT NULL;
        """,
        // 0.9: the App Attest counters accepted below the highest (bit k: highest - k), so assertions sent at once
        // may arrive in any order; a key kept before refused every counter up to its highest: all bits set (-1).
        """
        ALTER TABLE app_attest_keys ADD COLUMN accepted_counters INTEGER NOT NULL DEFAULT -1;
        """,
    ]

    /// Applies every migration the database has not seen yet, each in its own transaction. The
    /// version is read inside the transaction, so two processes opening one new file migrate once.
    static func migrate(_ connection: SQLiteConnection) throws {
        for (index, sql) in migrations.enumerated() {
            try connection.transaction {
                let current = try connection.userVersion
                guard current <= migrations.count else {
                    throw StoreError(.database, "database schema version \(current) is newer than this Latchkey (\(migrations.count))")
                }
                guard current == index else { return }
                try connection.execute(sql)
                try connection.execute("PRAGMA user_version = \(index + 1)")
            }
        }
    }
}
