import LatchkeyStore
import Logging
import PostgresNIO

/// The PostgreSQL schema, as numbered migrations kept in `latchkey_schema_migrations`: migration N
/// brings the schema from version N-1 to N. Never edit a released migration; append a new one.
///
/// Text a person typed (usernames, display names, passkey names) is stored as UTF-8 in `bytea`:
/// PostgreSQL's `text` cannot hold a NUL, and such a name must round-trip and match exactly.
enum PostgresSchema {
    /// Each migration is a list of statements (the extended protocol runs one per query).
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE users (
                handle bytea NOT NULL,
                username bytea NOT NULL,
                display_name bytea NOT NULL,
                created_at timestamptz NOT NULL,
                CONSTRAINT users_pkey PRIMARY KEY (handle),
                CONSTRAINT users_username_key UNIQUE (username)
            )
            """,
            """
            CREATE TABLE credentials (
                id bytea NOT NULL,
                user_handle bytea NOT NULL,
                public_key bytea NOT NULL,
                algorithm bigint NOT NULL,
                sign_count bigint NOT NULL,
                transports text[] NOT NULL,
                aaguid bytea NOT NULL,
                attestation_format text NOT NULL,
                attestation_type text NOT NULL,
                backup_eligible boolean NOT NULL,
                backed_up boolean NOT NULL,
                resident_key boolean,
                user_verified boolean NOT NULL,
                created_at timestamptz NOT NULL,
                last_used_at timestamptz,
                attestation_trusted boolean NOT NULL,
                trust_path bytea[] NOT NULL,
                cred_protect smallint,
                sign_count_regressions bigint NOT NULL DEFAULT 0,
                name bytea,
                -- Insertion order, to list passkeys created in the same second as they came.
                registered bigint GENERATED ALWAYS AS IDENTITY,
                CONSTRAINT credentials_pkey PRIMARY KEY (id),
                CONSTRAINT credentials_user_handle_fkey FOREIGN KEY (user_handle) REFERENCES users (handle) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX credentials_by_user ON credentials (user_handle, created_at, registered)",
            """
            CREATE TABLE pending_ceremonies (
                challenge_hash bytea NOT NULL,
                kind text NOT NULL,
                user_handle bytea,
                username bytea,
                display_name bytea,
                user_verification text NOT NULL,
                binding_hash bytea,
                expires_at timestamptz NOT NULL,
                CONSTRAINT pending_ceremonies_pkey PRIMARY KEY (challenge_hash)
            )
            """,
            "CREATE INDEX pending_ceremonies_by_expiry ON pending_ceremonies (expires_at)",
            "CREATE INDEX pending_ceremonies_by_user ON pending_ceremonies (user_handle) WHERE user_handle IS NOT NULL",
            """
            CREATE TABLE sessions (
                token_hash bytea NOT NULL,
                user_handle bytea NOT NULL,
                created_at timestamptz NOT NULL,
                expires_at timestamptz NOT NULL,
                CONSTRAINT sessions_pkey PRIMARY KEY (token_hash),
                CONSTRAINT sessions_user_handle_fkey FOREIGN KEY (user_handle) REFERENCES users (handle) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX sessions_by_expiry ON sessions (expires_at)",
            "CREATE INDEX sessions_by_user ON sessions (user_handle)",
            """
            CREATE TABLE secrets (
                name text NOT NULL,
                value bytea NOT NULL,
                CONSTRAINT secrets_pkey PRIMARY KEY (name)
            )
            """,
        ],
        [
            "ALTER TABLE users ADD COLUMN external_id bytea",
            "ALTER TABLE users ADD CONSTRAINT users_external_id_key UNIQUE (external_id)",
            "ALTER TABLE pending_ceremonies ADD COLUMN enrollment_ticket_hash bytea",
            "ALTER TABLE pending_ceremonies ADD COLUMN conditional boolean NOT NULL DEFAULT false",
            """
            CREATE TABLE admin_keys (
                name text NOT NULL,
                key_hash bytea NOT NULL,
                created_at timestamptz NOT NULL,
                last_used_at timestamptz,
                CONSTRAINT admin_keys_pkey PRIMARY KEY (name),
                CONSTRAINT admin_keys_key_hash_key UNIQUE (key_hash)
            )
            """,
            """
            CREATE TABLE enrollment_tickets (
                hash bytea NOT NULL,
                user_handle bytea NOT NULL,
                created_at timestamptz NOT NULL,
                expires_at timestamptz NOT NULL,
                used_at timestamptz,
                revoked_at timestamptz,
                CONSTRAINT enrollment_tickets_pkey PRIMARY KEY (hash),
                CONSTRAINT enrollment_tickets_user_handle_fkey FOREIGN KEY (user_handle) REFERENCES users (handle) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX enrollment_tickets_by_user ON enrollment_tickets (user_handle)",
            "CREATE INDEX enrollment_tickets_by_expiry ON enrollment_tickets (expires_at)",
            """
            CREATE TABLE signing_keys (
                generation bigint NOT NULL,
                key_id text NOT NULL,
                private_key bytea NOT NULL,
                created_at timestamptz NOT NULL,
                signs_from timestamptz NOT NULL,
                CONSTRAINT signing_keys_pkey PRIMARY KEY (generation),
                CONSTRAINT signing_keys_key_id_key UNIQUE (key_id)
            )
            """,
            """
            CREATE TABLE device_keys (
                id bytea NOT NULL,
                user_handle bytea NOT NULL,
                public_key bytea NOT NULL,
                name bytea,
                created_at timestamptz NOT NULL,
                last_used_at timestamptz,
                registered bigint GENERATED ALWAYS AS IDENTITY,
                CONSTRAINT device_keys_pkey PRIMARY KEY (id),
                CONSTRAINT device_keys_user_handle_fkey FOREIGN KEY (user_handle) REFERENCES users (handle) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX device_keys_by_user ON device_keys (user_handle)",
            """
            CREATE TABLE store_health (
                id integer NOT NULL,
                checked_at timestamptz NOT NULL,
                CONSTRAINT store_health_pkey PRIMARY KEY (id),
                CONSTRAINT store_health_one_row CHECK (id = 1)
            )
            """,
        ],
        // 3: App Attest keys, and the one that vouched for a device key's enrollment.
        [
            """
            CREATE TABLE app_attest_keys (
                key_id bytea NOT NULL,
                public_key bytea NOT NULL,
                app_id text NOT NULL,
                environment text NOT NULL,
                receipt bytea NOT NULL,
                counter bigint NOT NULL,
                created_at timestamptz NOT NULL,
                last_used_at timestamptz,
                CONSTRAINT app_attest_keys_pkey PRIMARY KEY (key_id)
            )
            """,
            "ALTER TABLE device_keys ADD COLUMN app_attest_key_id bytea",
        ],
        // 4: the audit log, and the webhook outbox written in the same transactions.
        [
            """
            CREATE TABLE security_events (
                sequence bigint GENERATED ALWAYS AS IDENTITY,
                id text NOT NULL,
                type text NOT NULL,
                occurred_at timestamptz NOT NULL,
                user_handle bytea,
                username bytea,
                credential_id bytea,
                aaguid bytea,
                authenticator_name text,
                client_address text,
                user_agent text,
                request_id text,
                actor text NOT NULL,
                detail bytea,
                CONSTRAINT security_events_pkey PRIMARY KEY (sequence),
                CONSTRAINT security_events_id_key UNIQUE (id)
            )
            """,
            "CREATE INDEX security_events_by_user ON security_events (user_handle, sequence) WHERE user_handle IS NOT NULL",
            """
            CREATE TABLE webhook_deliveries (
                id bigint GENERATED ALWAYS AS IDENTITY,
                event_id text NOT NULL,
                receiver text NOT NULL,
                ordering_key bytea NOT NULL,
                state text NOT NULL,
                attempts integer NOT NULL DEFAULT 0,
                created_at timestamptz NOT NULL,
                next_attempt_at timestamptz NOT NULL,
                retry_until timestamptz NOT NULL,
                lease_owner text,
                lease_until timestamptz,
                delivered_at timestamptz,
                last_error text,
                CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id)
            )
            """,
            "CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (receiver, ordering_key, id) WHERE state = 'pending'",
            "CREATE INDEX webhook_deliveries_by_state ON webhook_deliveries (state, id)",
            "CREATE INDEX webhook_deliveries_by_creation ON webhook_deliveries (created_at)",
        ],
        // 0.9: the nonce a client asks the ceremony's token to carry.
        ["ALTER TABLE pending_ceremonies ADD COLUMN nonce bytea"],
        // 0.9: an account the backend disabled.
        ["ALTER TABLE users ADD COLUMN disabled boolean NOT NULL DEFAULT false"],
        // 0.9: the device key a session signed in with, whose removal ends it.
        [
            "ALTER TABLE sessions ADD COLUMN device_key_id bytea",
            "CREATE INDEX sessions_by_device_key ON sessions (device_key_id) WHERE device_key_id IS NOT NULL",
        ],
        // 0.9: the App Attest counters accepted below the highest (bit k: highest - k), so assertions sent at once
        // may arrive in any order; a key kept before refused every counter up to its highest: all bits set (-1).
        ["ALTER TABLE app_attest_keys ADD COLUMN accepted_counters bigint NOT NULL DEFAULT -1"],
        // 0.9: tenants, as SQLite's migration 12. Every row carries its tenant (rows from before are the default
        // tenant's), and what a client or a backend names is unique within one tenant only; server-made random
        // keys (challenge, session, ticket and admin key hashes, user handles) stay unique across tenants. A child
        // row names its parent with its tenant, so a tenant cannot hang a passkey, session, ticket or device key on
        // another's user. Constraints keep their names, which ``PostgresStore`` maps to errors.
        [
            "users", "credentials", "pending_ceremonies", "sessions", "secrets", "admin_keys", "enrollment_tickets",
            "signing_keys", "device_keys", "app_attest_keys", "security_events", "webhook_deliveries",
        ].map { "ALTER TABLE \($0) ADD COLUMN tenant text NOT NULL DEFAULT 'default'" } + [
            "ALTER TABLE credentials DROP CONSTRAINT credentials_user_handle_fkey",
            "ALTER TABLE sessions DROP CONSTRAINT sessions_user_handle_fkey",
            "ALTER TABLE enrollment_tickets DROP CONSTRAINT enrollment_tickets_user_handle_fkey",
            "ALTER TABLE device_keys DROP CONSTRAINT device_keys_user_handle_fkey",
            """
            ALTER TABLE users DROP CONSTRAINT users_username_key, DROP CONSTRAINT users_external_id_key,
                ADD CONSTRAINT users_username_key UNIQUE (tenant, username),
                ADD CONSTRAINT users_external_id_key UNIQUE (tenant, external_id),
                ADD CONSTRAINT users_handle_tenant_key UNIQUE (handle, tenant)
            """,
            """
            ALTER TABLE credentials DROP CONSTRAINT credentials_pkey, ADD CONSTRAINT credentials_pkey PRIMARY KEY (id, tenant),
                ADD CONSTRAINT credentials_user_handle_fkey FOREIGN KEY (user_handle, tenant)
                    REFERENCES users (handle, tenant) ON DELETE CASCADE
            """,
            """
            ALTER TABLE sessions ADD CONSTRAINT sessions_user_handle_fkey FOREIGN KEY (user_handle, tenant)
                REFERENCES users (handle, tenant) ON DELETE CASCADE
            """,
            """
            ALTER TABLE enrollment_tickets ADD CONSTRAINT enrollment_tickets_user_handle_fkey FOREIGN KEY (user_handle, tenant)
                REFERENCES users (handle, tenant) ON DELETE CASCADE
            """,
            """
            ALTER TABLE device_keys DROP CONSTRAINT device_keys_pkey, ADD CONSTRAINT device_keys_pkey PRIMARY KEY (id, tenant),
                ADD CONSTRAINT device_keys_user_handle_fkey FOREIGN KEY (user_handle, tenant)
                    REFERENCES users (handle, tenant) ON DELETE CASCADE
            """,
            "ALTER TABLE admin_keys DROP CONSTRAINT admin_keys_pkey, ADD CONSTRAINT admin_keys_pkey PRIMARY KEY (tenant, name)",
            """
            ALTER TABLE signing_keys DROP CONSTRAINT signing_keys_pkey, ADD CONSTRAINT signing_keys_pkey PRIMARY KEY (tenant, generation)
            """,
            """
            ALTER TABLE app_attest_keys DROP CONSTRAINT app_attest_keys_pkey,
                ADD CONSTRAINT app_attest_keys_pkey PRIMARY KEY (key_id, tenant)
            """,
            "ALTER TABLE secrets DROP CONSTRAINT secrets_pkey, ADD CONSTRAINT secrets_pkey PRIMARY KEY (name, tenant)",
        ],
        // 0.9: the tenants an operator made (the default one is the configuration's), each host one tenant's, and the
        // revision every change moves on, which instances poll.
        [
            """
            CREATE TABLE tenants (
                id text NOT NULL,
                settings bytea NOT NULL,
                created_at timestamptz NOT NULL,
                updated_at timestamptz NOT NULL,
                CONSTRAINT tenants_pkey PRIMARY KEY (id)
            )
            """,
            """
            CREATE TABLE tenant_hosts (
                host text NOT NULL,
                tenant text NOT NULL,
                CONSTRAINT tenant_hosts_pkey PRIMARY KEY (host),
                CONSTRAINT tenant_hosts_tenant_fkey FOREIGN KEY (tenant) REFERENCES tenants (id) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX tenant_hosts_by_tenant ON tenant_hosts (tenant)",
            """
            CREATE TABLE tenant_directory (
                id integer NOT NULL,
                revision bigint NOT NULL,
                CONSTRAINT tenant_directory_pkey PRIMARY KEY (id),
                CONSTRAINT tenant_directory_one_row CHECK (id = 1)
            )
            """,
            "INSERT INTO tenant_directory (id, revision) VALUES (1, 0)",
        ],
        // 0.9: limits every instance counts together. A pending challenge names the client it was issued to and the
        // instance that counts it; each client's token bucket (tokens as of `updated_at`, in seconds since 1970) is
        // shared, kept while it is not full. And tenant-leading indexes for the event feed and the outbox.
        [
            "ALTER TABLE pending_ceremonies ADD COLUMN client text, ADD COLUMN instance text",
            """
            CREATE TABLE rate_limit_buckets (
                tenant text NOT NULL,
                client text NOT NULL,
                tokens double precision NOT NULL,
                updated_at double precision NOT NULL,
                rate double precision NOT NULL,
                burst double precision NOT NULL,
                CONSTRAINT rate_limit_buckets_pkey PRIMARY KEY (tenant, client)
            )
            """,
            // A tenant's event feed and webhook outbox are read through indexes that lead with the tenant, so one
            // tenant's page or claim never walks another's rows.
            "CREATE INDEX security_events_by_tenant ON security_events (tenant, sequence)",
            "DROP INDEX webhook_deliveries_pending",
            """
            CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (tenant, receiver, ordering_key, id) WHERE state = 'pending'
            """,
            "DROP INDEX webhook_deliveries_by_state",
            "CREATE INDEX webhook_deliveries_by_state ON webhook_deliveries (tenant, state, id)",
        ],
        // 0.9: statistics kept as the data changes, per tenant and UTC day (`YYYY-MM-DD`), each row in several slots
        // that concurrent writers pick at random; the per-user state behind active users and passkey holders; a
        // refused sign-in's reason code and a passkey's backup eligibility in its events, which the statistics count by.
        // The users and passkey holders a store has count from the day it migrates.
        [
            "ALTER TABLE security_events ADD COLUMN reason text, ADD COLUMN backup_eligible boolean",
            """
            CREATE TABLE daily_statistics (
                tenant text NOT NULL,
                day text NOT NULL,
                metric text NOT NULL,
                dimension text NOT NULL,
                slot smallint NOT NULL,
                count bigint NOT NULL,
                CONSTRAINT daily_statistics_pkey PRIMARY KEY (tenant, day, metric, dimension, slot)
            )
            """,
            "CREATE INDEX daily_statistics_by_metric ON daily_statistics (tenant, metric, day)",
            """
            CREATE TABLE statistics_users (
                tenant text NOT NULL,
                user_handle bytea NOT NULL,
                passkeys bigint NOT NULL,
                last_active_day text,
                CONSTRAINT statistics_users_pkey PRIMARY KEY (tenant, user_handle)
            )
            """,
            """
            INSERT INTO statistics_users (tenant, user_handle, passkeys, last_active_day)
            SELECT tenant, user_handle, count(*), NULL FROM credentials GROUP BY tenant, user_handle
            """,
            """
            INSERT INTO daily_statistics (tenant, day, metric, dimension, slot, count)
            SELECT tenant, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD'), 'users', '', 0, count(*) FROM users GROUP BY tenant
            """,
            """
            INSERT INTO daily_statistics (tenant, day, metric, dimension, slot, count)
            SELECT tenant, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD'), 'users.with_passkey', '', 0, count(DISTINCT user_handle)
            FROM credentials GROUP BY tenant
            """,
        ],
        // 0.10: no statement reads rows in proportion to a table (the planner tests check every one). A user's events
        // through an index that leads with the tenant, so the registration's history check and a user's activity read
        // that user's rows only; a tenant's deliveries newest first, and delivered ones by age; a user's passkeys under
        // their tenant, so a statistics rebuild reads its tenant's passkeys, not every one.
        [
            "DROP INDEX credentials_by_user",
            "CREATE INDEX credentials_by_user ON credentials (tenant, user_handle, created_at, registered)",
            "DROP INDEX security_events_by_user",
            """
            CREATE INDEX security_events_by_user ON security_events (tenant, user_handle, sequence) WHERE user_handle IS NOT NULL
            """,
            "CREATE INDEX webhook_deliveries_by_tenant ON webhook_deliveries (tenant, id)",
            "CREATE INDEX webhook_deliveries_delivered ON webhook_deliveries (delivered_at) WHERE state = 'delivered'",
        ],
        // 0.11: the OpenID provider. What a session's sign-in proved (RFC 8176 values, space-separated); each tenant's
        // clients; the grants a person gave them, each with the hashes of its current code, access and refresh tokens.
        // A grant goes with its client and its user. The contact an account was created with; the groups users are in.
        [
            "ALTER TABLE sessions ADD COLUMN methods text NOT NULL DEFAULT ''",
            """
            CREATE TABLE oauth_clients (
                client_id text NOT NULL,
                tenant text NOT NULL,
                name bytea NOT NULL,
                secret_hash bytea,
                redirect_uris text[] NOT NULL,
                post_logout_redirect_uris text[] NOT NULL,
                scopes text[] NOT NULL,
                consent boolean NOT NULL,
                access_token_lifetime bigint NOT NULL,
                refresh_token_lifetime bigint NOT NULL,
                created_at timestamptz NOT NULL,
                updated_at timestamptz NOT NULL,
                allowed_groups text[] NOT NULL,
                CONSTRAINT oauth_clients_pkey PRIMARY KEY (tenant, client_id)
            )
            """,
            """
            CREATE TABLE oauth_grants (
                id bytea NOT NULL,
                tenant text NOT NULL,
                client_id text NOT NULL,
                user_handle bytea NOT NULL,
                scopes text[] NOT NULL,
                redirect_uri text NOT NULL,
                nonce text,
                code_challenge text,
                auth_time timestamptz NOT NULL,
                methods text[] NOT NULL,
                code_hash bytea NOT NULL,
                code_expires_at timestamptz NOT NULL,
                code_used_at timestamptz,
                access_hash bytea,
                access_expires_at timestamptz,
                refresh_hash bytea,
                refresh_expires_at timestamptz,
                revoked_at timestamptz,
                created_at timestamptz NOT NULL,
                expires_at timestamptz NOT NULL,
                revision bigint NOT NULL,
                spent_refresh_hashes bytea NOT NULL,
                CONSTRAINT oauth_grants_pkey PRIMARY KEY (id),
                CONSTRAINT oauth_grants_client_fkey FOREIGN KEY (tenant, client_id) REFERENCES oauth_clients (tenant, client_id)
                    ON DELETE CASCADE,
                CONSTRAINT oauth_grants_user_fkey FOREIGN KEY (user_handle, tenant) REFERENCES users (handle, tenant) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX oauth_grants_by_client ON oauth_grants (tenant, client_id)",
            "CREATE INDEX oauth_grants_by_user ON oauth_grants (tenant, user_handle)",
            "CREATE INDEX oauth_grants_by_expiry ON oauth_grants (expires_at)",
            """
            CREATE TABLE user_contacts (
                tenant text NOT NULL,
                user_handle bytea NOT NULL,
                kind text NOT NULL,
                value bytea NOT NULL,
                CONSTRAINT user_contacts_pkey PRIMARY KEY (tenant, user_handle),
                CONSTRAINT user_contacts_user_fkey FOREIGN KEY (user_handle, tenant) REFERENCES users (handle, tenant) ON DELETE CASCADE
            )
            """,
            """
            CREATE TABLE oauth_consents (
                tenant text NOT NULL,
                user_handle bytea NOT NULL,
                client_id text NOT NULL,
                scopes text[] NOT NULL,
                granted_at timestamptz NOT NULL,
                CONSTRAINT oauth_consents_pkey PRIMARY KEY (tenant, user_handle, client_id),
                CONSTRAINT oauth_consents_client_fkey FOREIGN KEY (tenant, client_id) REFERENCES oauth_clients (tenant, client_id)
                    ON DELETE CASCADE,
                CONSTRAINT oauth_consents_user_fkey FOREIGN KEY (user_handle, tenant) REFERENCES users (handle, tenant) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX oauth_consents_by_client ON oauth_consents (tenant, client_id)",
            """
            CREATE TABLE user_groups (
                tenant text NOT NULL,
                user_handle bytea NOT NULL,
                name bytea NOT NULL,
                CONSTRAINT user_groups_pkey PRIMARY KEY (tenant, user_handle, name),
                CONSTRAINT user_groups_user_fkey FOREIGN KEY (user_handle, tenant) REFERENCES users (handle, tenant) ON DELETE CASCADE
            )
            """,
        ],
        // 0.11, the device authorization grant (RFC 8628): clients allowed it, and the devices' pending requests, each
        // found by its grant ID (the device's polls) or its user code's hash (the person's page).
        [
            "ALTER TABLE oauth_clients ADD COLUMN device_authorization boolean NOT NULL DEFAULT false",
            """
            CREATE TABLE oauth_device_authorizations (
                grant_id bytea NOT NULL,
                tenant text NOT NULL,
                device_code_hash bytea NOT NULL,
                user_code_hash bytea NOT NULL,
                client_id text NOT NULL,
                scopes text[] NOT NULL,
                created_at timestamptz NOT NULL,
                expires_at timestamptz NOT NULL,
                interval bigint NOT NULL,
                polled_at timestamptz,
                decision text,
                user_handle bytea,
                CONSTRAINT oauth_device_authorizations_pkey PRIMARY KEY (grant_id),
                CONSTRAINT oauth_device_authorizations_user_code_key UNIQUE (tenant, user_code_hash),
                CONSTRAINT oauth_device_authorizations_client_fkey FOREIGN KEY (tenant, client_id) REFERENCES oauth_clients (tenant, client_id)
                    ON DELETE CASCADE
            )
            """,
            "CREATE INDEX oauth_device_authorizations_by_client ON oauth_device_authorizations (tenant, client_id)",
            "CREATE INDEX oauth_device_authorizations_by_expiry ON oauth_device_authorizations (expires_at)",
        ],
    ]

    /// The table that records which migrations ran.
    static let versionTable = "latchkey_schema_migrations"

    /// Every instance migrating one database takes this transaction-scoped advisory lock first, so
    /// of several instances starting together one migrates and the others then find nothing to do.
    /// The value is "latchkey" in ASCII.
    static let migrationLock: Int64 = 0x6C61_7463_686B_6579

    /// Connects once, bounded by the configuration's connect timeout, and applies in one
    /// transaction every migration the database has not seen. Throws when the database's schema is
    /// newer than this Latchkey's.
    static func migrate(_ configuration: PostgresStore.Configuration, logger: Logger) async throws {
        let connection = try await connect(configuration)
        do {
            let applied = try await migrate(on: connection)
            if !applied.isEmpty {
                logger.info("migrated the PostgreSQL schema", metadata: [
                    "server": "\(configuration.server)", "versions": "\(applied.map(String.init).joined(separator: ","))",
                ])
            }
        } catch {
            try? await connection.close()
            throw PostgresStore.storeError(error, configuration: configuration)
        }
        try? await connection.close()
    }

    /// Connects once and reads the schema version without changing anything: what `check-config`
    /// reports before a server starts.
    static func version(_ configuration: PostgresStore.Configuration) async throws -> Int {
        let connection = try await connect(configuration)
        do {
            let version = try await version(on: connection)
            try? await connection.close()
            return version
        } catch {
            try? await connection.close()
            throw PostgresStore.storeError(error, configuration: configuration)
        }
    }

    private static func version(on connection: PostgresConnection) async throws -> Int {
        let exists = try await PostgresStore.rows(
            PostgresQuery(unsafeSQL: "SELECT to_regclass('\(versionTable)') IS NOT NULL"), on: connection
        ) { try $0.next(Bool.self) }.first ?? false
        guard exists else { return 0 }
        return Int(try await PostgresStore.rows(
            PostgresQuery(unsafeSQL: "SELECT coalesce(max(version), 0) FROM \(versionTable)"), on: connection
        ) { try $0.next(Int64.self) }.first ?? 0)
    }

    /// One connection outside the pool, bounded by the configuration's connect timeout.
    private static func connect(_ configuration: PostgresStore.Configuration) async throws -> PostgresConnection {
        do {
            return try await PostgresConnection.connect(
                configuration: try configuration.connectionConfiguration(), id: 0, logger: PostgresStore.silent)
        } catch {
            throw PostgresStore.storeError(error, configuration: configuration)
        }
    }

    /// Returns the versions it applied.
    static func migrate(on connection: PostgresConnection) async throws -> [Int] {
        try await PostgresStore.transaction(on: connection) { connection in
            try await PostgresStore.execute("SELECT pg_advisory_xact_lock(\(migrationLock))", on: connection)
            try await PostgresStore.execute(PostgresQuery(unsafeSQL: """
                CREATE TABLE IF NOT EXISTS \(versionTable) (
                    version integer PRIMARY KEY,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """), on: connection)
            let current = try await PostgresStore.rows(
                PostgresQuery(unsafeSQL: "SELECT coalesce(max(version), 0) FROM \(versionTable)"), on: connection
            ) { try $0.next(Int64.self) }.first ?? 0
            guard current <= migrations.count else {
                throw StoreError(.database, "database schema version \(current) is newer than this Latchkey (\(migrations.count))")
            }
            var applied: [Int] = []
            for (index, statements) in migrations.enumerated() where index >= current {
                for statement in statements {
                    try await PostgresStore.execute(PostgresQuery(unsafeSQL: statement), on: connection)
                }
                let version = index + 1
                try await PostgresStore.execute(
                    "INSERT INTO latchkey_schema_migrations (version) VALUES (\(version))", on: connection)
                applied.append(version)
            }
            return applied
        }
    }
}
