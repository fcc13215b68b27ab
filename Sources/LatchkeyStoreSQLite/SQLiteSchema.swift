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
        // 0.9: tenants. Every row carries its tenant, and what a client or a backend names (usernames, external
        // IDs, credential, device and App Attest key IDs, admin key names, signing key generations, secrets) is
        // unique within one tenant only, so those tables are rebuilt with their keys; rows from before are the
        // default tenant's. Server-made random keys (challenge, session, ticket and admin key hashes, user handles)
        // stay unique across tenants. A child row names its parent with its tenant, so a tenant cannot hang a
        // passkey, session, ticket or device key on another's user.
        """
        CREATE TABLE users_v12 (
            handle BLOB PRIMARY KEY,
            tenant TEXT NOT NULL DEFAULT 'default',
            username TEXT NOT NULL,
            display_name TEXT NOT NULL,
            created_at REAL NOT NULL,
            external_id TEXT,
            disabled INTEGER NOT NULL DEFAULT 0,
            UNIQUE (tenant, username),
            UNIQUE (handle, tenant)
        );
        INSERT INTO users_v12 (handle, tenant, username, display_name, created_at, external_id, disabled)
            SELECT handle, 'default', username, display_name, created_at, external_id, disabled FROM users;
        DROP TABLE users;
        ALTER TABLE users_v12 RENAME TO users;
        CREATE UNIQUE INDEX users_by_external_id ON users(tenant, external_id) WHERE external_id IS NOT NULL;

        CREATE TABLE credentials_v12 (
            id BLOB NOT NULL,
            tenant TEXT NOT NULL DEFAULT 'default',
            user_handle BLOB NOT NULL,
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
            last_used_at REAL,
            attestation_trusted INTEGER NOT NULL DEFAULT 0,
            trust_path TEXT NOT NULL DEFAULT '',
            cred_protect INTEGER,
            sign_count_regressions INTEGER NOT NULL DEFAULT 0,
            name TEXT,
            PRIMARY KEY (id, tenant),
            FOREIGN KEY (user_handle, tenant) REFERENCES users(handle, tenant) ON DELETE CASCADE
        );
        INSERT INTO credentials_v12 (rowid, id, tenant, user_handle, public_key, algorithm, sign_count, transports, aaguid,
                attestation_format, attestation_type, backup_eligible, backed_up, resident_key, user_verified, created_at,
                last_used_at, attestation_trusted, trust_path, cred_protect, sign_count_regressions, name)
            SELECT rowid, id, 'default', user_handle, public_key, algorithm, sign_count, transports, aaguid, attestation_format,
                attestation_type, backup_eligible, backed_up, resident_key, user_verified, created_at, last_used_at,
                attestation_trusted, trust_path, cred_protect, sign_count_regressions, name
            FROM credentials;
        DROP TABLE credentials;
        ALTER TABLE credentials_v12 RENAME TO credentials;
        CREATE INDEX credentials_by_user ON credentials(user_handle);

        CREATE TABLE admin_keys_v12 (
            name TEXT NOT NULL,
            tenant TEXT NOT NULL DEFAULT 'default',
            key_hash BLOB NOT NULL UNIQUE,
            created_at REAL NOT NULL,
            last_used_at REAL,
            PRIMARY KEY (tenant, name)
        );
        INSERT INTO admin_keys_v12 (rowid, name, tenant, key_hash, created_at, last_used_at)
            SELECT rowid, name, 'default', key_hash, created_at, last_used_at FROM admin_keys;
        DROP TABLE admin_keys;
        ALTER TABLE admin_keys_v12 RENAME TO admin_keys;

        CREATE TABLE signing_keys_v12 (
            generation INTEGER NOT NULL,
            tenant TEXT NOT NULL DEFAULT 'default',
            key_id TEXT NOT NULL UNIQUE,
            private_key BLOB NOT NULL,
            created_at REAL NOT NULL,
            signs_from REAL NOT NULL,
            PRIMARY KEY (tenant, generation)
        );
        INSERT INTO signing_keys_v12 (generation, tenant, key_id, private_key, created_at, signs_from)
            SELECT generation, 'default', key_id, private_key, created_at, signs_from FROM signing_keys;
        DROP TABLE signing_keys;
        ALTER TABLE signing_keys_v12 RENAME TO signing_keys;

        CREATE TABLE device_keys_v12 (
            id BLOB NOT NULL,
            tenant TEXT NOT NULL DEFAULT 'default',
            user_handle BLOB NOT NULL,
            public_key BLOB NOT NULL,
            name TEXT,
            created_at REAL NOT NULL,
            last_used_at REAL,
            app_attest_key_id BLOB,
            PRIMARY KEY (id, tenant),
            FOREIGN KEY (user_handle, tenant) REFERENCES users(handle, tenant) ON DELETE CASCADE
        );
        INSERT INTO device_keys_v12 (rowid, id, tenant, user_handle, public_key, name, created_at, last_used_at, app_attest_key_id)
            SELECT rowid, id, 'default', user_handle, public_key, name, created_at, last_used_at, app_attest_key_id FROM device_keys;
        DROP TABLE device_keys;
        ALTER TABLE device_keys_v12 RENAME TO device_keys;
        CREATE INDEX device_keys_by_user ON device_keys(user_handle);

        CREATE TABLE app_attest_keys_v12 (
            key_id BLOB NOT NULL,
            tenant TEXT NOT NULL DEFAULT 'default',
            public_key BLOB NOT NULL,
            app_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            receipt BLOB NOT NULL,
            counter INTEGER NOT NULL,
            created_at REAL NOT NULL,
            last_used_at REAL,
            accepted_counters INTEGER NOT NULL DEFAULT -1,
            PRIMARY KEY (key_id, tenant)
        );
        INSERT INTO app_attest_keys_v12 (key_id, tenant, public_key, app_id, environment, receipt, counter, created_at, last_used_at,
                accepted_counters)
            SELECT key_id, 'default', public_key, app_id, environment, receipt, counter, created_at, last_used_at, accepted_counters
            FROM app_attest_keys;
        DROP TABLE app_attest_keys;
        ALTER TABLE app_attest_keys_v12 RENAME TO app_attest_keys;

        CREATE TABLE secrets_v12 (
            name TEXT NOT NULL,
            tenant TEXT NOT NULL DEFAULT 'default',
            value BLOB NOT NULL,
            PRIMARY KEY (name, tenant)
        );
        INSERT INTO secrets_v12 (name, tenant, value) SELECT name, 'default', value FROM secrets;
        DROP TABLE secrets;
        ALTER TABLE secrets_v12 RENAME TO secrets;

        CREATE TABLE sessions_v12 (
            token_hash BLOB NOT NULL PRIMARY KEY,
            tenant TEXT NOT NULL DEFAULT 'default',
            user_handle BLOB NOT NULL,
            created_at REAL NOT NULL,
            expires_at REAL NOT NULL,
            device_key_id BLOB,
            FOREIGN KEY (user_handle, tenant) REFERENCES users(handle, tenant) ON DELETE CASCADE
        ) WITHOUT ROWID;
        INSERT INTO sessions_v12 (token_hash, tenant, user_handle, created_at, expires_at, device_key_id)
            SELECT token_hash, 'default', user_handle, created_at, expires_at, device_key_id FROM sessions;
        DROP TABLE sessions;
        ALTER TABLE sessions_v12 RENAME TO sessions;
        CREATE INDEX sessions_by_expiry ON sessions(expires_at);
        CREATE INDEX sessions_by_device_key ON sessions(device_key_id) WHERE device_key_id IS NOT NULL;

        CREATE TABLE enrollment_tickets_v12 (
            hash BLOB PRIMARY KEY,
            tenant TEXT NOT NULL DEFAULT 'default',
            user_handle BLOB NOT NULL,
            created_at REAL NOT NULL,
            expires_at REAL NOT NULL,
            used_at REAL,
            revoked_at REAL,
            FOREIGN KEY (user_handle, tenant) REFERENCES users(handle, tenant) ON DELETE CASCADE
        );
        INSERT INTO enrollment_tickets_v12 (rowid, hash, tenant, user_handle, created_at, expires_at, used_at, revoked_at)
            SELECT rowid, hash, 'default', user_handle, created_at, expires_at, used_at, revoked_at FROM enrollment_tickets;
        DROP TABLE enrollment_tickets;
        ALTER TABLE enrollment_tickets_v12 RENAME TO enrollment_tickets;
        CREATE INDEX enrollment_tickets_by_user ON enrollment_tickets(user_handle);
        CREATE INDEX enrollment_tickets_by_expiry ON enrollment_tickets(expires_at);

        ALTER TABLE pending_ceremonies ADD COLUMN tenant TEXT NOT NULL DEFAULT 'default';
        ALTER TABLE security_events ADD COLUMN tenant TEXT NOT NULL DEFAULT 'default';
        ALTER TABLE webhook_deliveries ADD COLUMN tenant TEXT NOT NULL DEFAULT 'default';
        """,
        // 0.9: the tenants an operator made (the default one is the configuration's), each host one tenant's, and the
        // revision every change moves on, which instances poll.
        """
        CREATE TABLE tenants (
            id TEXT PRIMARY KEY,
            settings BLOB NOT NULL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE TABLE tenant_hosts (
            host TEXT PRIMARY KEY,
            tenant TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE
        ) WITHOUT ROWID;
        CREATE INDEX tenant_hosts_by_tenant ON tenant_hosts(tenant);
        CREATE TABLE tenant_directory (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            revision INTEGER NOT NULL
        );
        INSERT INTO tenant_directory (id, revision) VALUES (1, 0);
        """,
        // 0.9: a tenant's event feed and webhook outbox are read through indexes that lead with the tenant, so one
        // tenant's page or claim never walks another's rows.
        """
        CREATE INDEX security_events_by_tenant ON security_events(tenant, sequence);
        DROP INDEX webhook_deliveries_pending;
        CREATE INDEX webhook_deliveries_pending ON webhook_deliveries(tenant, receiver, ordering_key, id) WHERE state = 'pending';
        DROP INDEX webhook_deliveries_by_state;
        CREATE INDEX webhook_deliveries_by_state ON webhook_deliveries(tenant, state, id);
        """,
        // 0.9: statistics kept as the data changes, per tenant and UTC day (`YYYY-MM-DD`), and the per-user state
        // behind active users and passkey holders; a refused sign-in's reason code and a passkey's backup
        // eligibility in its events, which the statistics count by. The users and passkey holders a store has
        // count from the day it migrates (`latchkey stats backfill` rebuilds the days before from the events).
        """
        ALTER TABLE security_events ADD COLUMN reason TEXT;
        ALTER TABLE security_events ADD COLUMN backup_eligible INTEGER;
        CREATE TABLE daily_statistics (
            tenant TEXT NOT NULL,
            day TEXT NOT NULL,
            metric TEXT NOT NULL,
            dimension TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (tenant, day, metric, dimension)
        ) WITHOUT ROWID;
        CREATE INDEX daily_statistics_by_metric ON daily_statistics(tenant, metric, day);
        CREATE INDEX sessions_by_user ON sessions(tenant, user_handle);
        CREATE TABLE statistics_users (
            tenant TEXT NOT NULL,
            user_handle BLOB NOT NULL,
            passkeys INTEGER NOT NULL,
            last_active_day TEXT,
            PRIMARY KEY (tenant, user_handle)
        ) WITHOUT ROWID;
        INSERT INTO statistics_users (tenant, user_handle, passkeys, last_active_day)
            SELECT tenant, user_handle, count(*), NULL FROM credentials GROUP BY tenant, user_handle;
        INSERT INTO daily_statistics (tenant, day, metric, dimension, count)
            SELECT tenant, strftime('%Y-%m-%d', 'now'), 'users', '', count(*) FROM users GROUP BY tenant;
        INSERT INTO daily_statistics (tenant, day, metric, dimension, count)
            SELECT tenant, strftime('%Y-%m-%d', 'now'), 'users.with_passkey', '', count(DISTINCT user_handle) FROM credentials
            GROUP BY tenant;
        """,
        // 0.10: no statement reads rows in proportion to a table (the planner tests check every one). A user's events
        // through an index that leads with the tenant, so the registration's history check and a user's activity read
        // that user's rows, never every event of the tenant (the planner took `security_events_by_tenant` for the user
        // index that left the tenant out); the expiry index pending ceremonies lost when their table was rebuilt (0.4),
        // which the purge and the live count read; a tenant's deliveries newest first, and delivered ones by age; a
        // user's passkeys under their tenant, so a statistics rebuild reads its tenant's passkeys, not every one.
        """
        DROP INDEX security_events_by_user;
        DROP INDEX credentials_by_user;
        CREATE INDEX credentials_by_user ON credentials(tenant, user_handle);
        CREATE INDEX security_events_by_user ON security_events(tenant, user_handle, sequence) WHERE user_handle IS NOT NULL;
        CREATE INDEX IF NOT EXISTS pending_ceremonies_by_expiry ON pending_ceremonies(expires_at);
        CREATE INDEX webhook_deliveries_by_tenant ON webhook_deliveries(tenant, id);
        CREATE INDEX webhook_deliveries_delivered ON webhook_deliveries(delivered_at) WHERE state = 'delivered';
        """,
        // 0.11: the OpenID provider. What a session's sign-in proved (RFC 8176 values, space-separated); each tenant's
        // clients; the grants a person gave them, each with the hashes of its current code, access and refresh tokens.
        // A grant goes with its client and its user. The contact an account was created with; the groups users are in.
        """
        ALTER TABLE sessions ADD COLUMN methods TEXT NOT NULL DEFAULT '';
        CREATE TABLE oauth_clients (
            client_id TEXT NOT NULL,
            tenant TEXT NOT NULL,
            name TEXT NOT NULL,
            secret_hash BLOB,
            redirect_uris TEXT NOT NULL,
            post_logout_redirect_uris TEXT NOT NULL,
            scopes TEXT NOT NULL,
            consent INTEGER NOT NULL,
            access_token_lifetime INTEGER NOT NULL,
            refresh_token_lifetime INTEGER NOT NULL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            allowed_groups TEXT NOT NULL,
            PRIMARY KEY (tenant, client_id)
        ) WITHOUT ROWID;
        CREATE TABLE oauth_grants (
            id BLOB NOT NULL PRIMARY KEY,
            tenant TEXT NOT NULL,
            client_id TEXT NOT NULL,
            user_handle BLOB NOT NULL,
            scopes TEXT NOT NULL,
            redirect_uri TEXT NOT NULL,
            nonce TEXT,
            code_challenge TEXT,
            auth_time REAL NOT NULL,
            methods TEXT NOT NULL,
            code_hash BLOB NOT NULL,
            code_expires_at REAL NOT NULL,
            code_used_at REAL,
            access_hash BLOB,
            access_expires_at REAL,
            refresh_hash BLOB,
            refresh_expires_at REAL,
            revoked_at REAL,
            created_at REAL NOT NULL,
            expires_at REAL NOT NULL,
            revision INTEGER NOT NULL,
            spent_refresh_hashes BLOB NOT NULL,
            FOREIGN KEY (tenant, client_id) REFERENCES oauth_clients(tenant, client_id) ON DELETE CASCADE,
            FOREIGN KEY (user_handle, tenant) REFERENCES users(handle, tenant) ON DELETE CASCADE
        ) WITHOUT ROWID;
        CREATE INDEX oauth_grants_by_client ON oauth_grants(tenant, client_id);
        CREATE INDEX oauth_grants_by_user ON oauth_grants(tenant, user_handle);
        CREATE INDEX oauth_grants_by_expiry ON oauth_grants(expires_at);
        CREATE TABLE user_contacts (
            tenant TEXT NOT NULL,
            user_handle BLOB NOT NULL,
            kind TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (tenant, user_handle),
            FOREIGN KEY (user_handle, tenant) REFERENCES users(handle, tenant) ON DELETE CASCADE
        ) WITHOUT ROWID;
        CREATE TABLE oauth_consents (
            tenant TEXT NOT NULL,
            user_handle BLOB NOT NULL,
            client_id TEXT NOT NULL,
            scopes TEXT NOT NULL,
            granted_at REAL NOT NULL,
            PRIMARY KEY (tenant, user_handle, client_id),
            FOREIGN KEY (tenant, client_id) REFERENCES oauth_clients(tenant, client_id) ON DELETE CASCADE,
            FOREIGN KEY (user_handle, tenant) REFERENCES users(handle, tenant) ON DELETE CASCADE
        ) WITHOUT ROWID;
        CREATE INDEX oauth_consents_by_client ON oauth_consents(tenant, client_id);
        CREATE TABLE user_groups (
            tenant TEXT NOT NULL,
            user_handle BLOB NOT NULL,
            name TEXT NOT NULL,
            PRIMARY KEY (tenant, user_handle, name),
            FOREIGN KEY (user_handle, tenant) REFERENCES users(handle, tenant) ON DELETE CASCADE
        ) WITHOUT ROWID;
        """,
        // 0.11, the device authorization grant (RFC 8628): clients allowed it, and the devices' pending requests, each
        // found by its grant ID (the device's polls) or its user code's hash (the person's page).
        """
        ALTER TABLE oauth_clients ADD COLUMN device_authorization INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE oauth_device_authorizations (
            grant_id BLOB NOT NULL PRIMARY KEY,
            tenant TEXT NOT NULL,
            device_code_hash BLOB NOT NULL,
            user_code_hash BLOB NOT NULL,
            client_id TEXT NOT NULL,
            scopes TEXT NOT NULL,
            created_at REAL NOT NULL,
            expires_at REAL NOT NULL,
            interval INTEGER NOT NULL,
            polled_at REAL,
            decision TEXT,
            user_handle BLOB,
            FOREIGN KEY (tenant, client_id) REFERENCES oauth_clients(tenant, client_id) ON DELETE CASCADE
        ) WITHOUT ROWID;
        CREATE UNIQUE INDEX oauth_device_authorizations_by_user_code ON oauth_device_authorizations(tenant, user_code_hash);
        CREATE INDEX oauth_device_authorizations_by_client ON oauth_device_authorizations(tenant, client_id);
        CREATE INDEX oauth_device_authorizations_by_expiry ON oauth_device_authorizations(expires_at);
        """,
    ]

    /// Applies every migration the database has not seen yet, each in its own transaction. The
    /// version is read inside the transaction, so two processes opening one new file migrate once.
    /// Foreign keys are off meanwhile, so a migration can rebuild a table others refer to (dropping the
    /// old one would otherwise delete their rows); each checks them before it commits.
    static func migrate(_ connection: SQLiteConnection) throws {
        try connection.execute("PRAGMA foreign_keys = OFF")
        defer { try? connection.execute("PRAGMA foreign_keys = ON") }
        for (index, sql) in migrations.enumerated() {
            try connection.transaction {
                let current = try connection.userVersion
                guard current <= migrations.count else {
                    throw StoreError(.database, "database schema version \(current) is newer than this Latchkey (\(migrations.count))")
                }
                guard current == index else { return }
                try connection.execute(sql)
                try connection.checkForeignKeys()
                try connection.execute("PRAGMA user_version = \(index + 1)")
            }
        }
    }
}
