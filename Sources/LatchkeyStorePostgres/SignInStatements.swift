import Foundation
import LatchkeyStore
import PostgresNIO

/// The statements of the ceremonies themselves, which run on every sign-in and every request
/// that carries a session, as named prepared statements: each connection has PostgreSQL parse and
/// plan them once, on first use, and later calls only bind and execute them. (An ordinary query is
/// parsed and planned again on every call, and the sign-in's CTEs are the costliest to plan.) The
/// SQL is the same as in ``PostgresStore``'s other calls, numbered by hand.
///
/// A proxy that hands one server connection to several clients must forward protocol-level
/// prepared statements (PgBouncer 1.21 and later, with `max_prepared_statements` set).
enum SignInStatements {
    /// The parameters' types, so the plan never depends on which values the first call bound.
    private static let bytea = PostgresDataType.bytea, text = PostgresDataType.text
    private static let timestamptz = PostgresDataType.timestamptz, int8 = PostgresDataType.int8
    private static let bool = PostgresDataType.bool

    /// Issues a challenge: ``PostgresStore/savePendingCeremony(_:)``.
    struct SavePendingCeremony: PostgresPreparedStatement {
        typealias Row = ()
        static let name = "latchkey_save_pending_ceremony_v5"
        static let sql = """
            INSERT INTO pending_ceremonies (\(PostgresRows.ceremonyColumns()), tenant, client, instance)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
            """
        static let bindingDataTypes = [bytea, text, bytea, bytea, bytea, text, bytea, timestamptz, bytea, bool, bytea, text, text, text]

        let ceremony: PendingCeremony
        let tenant: TenantID
        /// The instance that counts it in its caps (``PostgresStore/instance``).
        let instance: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 14)
            bindings.append(ceremony.challengeHash.bytea)
            bindings.append(ceremony.kind.rawValue)
            bindings.append(ceremony.userHandle?.bytea)
            bindings.append(ceremony.username?.utf8Bytea)
            bindings.append(ceremony.displayName?.utf8Bytea)
            bindings.append(ceremony.userVerification.rawValue)
            bindings.append(ceremony.bindingHash?.bytea)
            bindings.append(ceremony.expiresAt)
            bindings.append(ceremony.enrollmentTicketHash?.bytea)
            bindings.append(ceremony.conditional)
            bindings.append(ceremony.nonce?.utf8Bytea)
            bindings.append(tenant)
            bindings.append(ceremony.client)
            bindings.append(instance)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws {}
    }

    /// The user named in sign-in options and their passkeys, oldest first, one row each (one row
    /// with no passkey when they have none): ``PostgresStore/userWithCredentials(named:)``.
    struct UserWithCredentials: PostgresPreparedStatement {
        typealias Row = (user: UserRecord, credential: CredentialRecord?)
        static let name = "latchkey_user_with_credentials_v3"
        static let sql = """
            SELECT \(PostgresRows.userColumns("u.")), \(PostgresRows.credentialColumns("c."))
            FROM users u LEFT JOIN credentials c ON c.user_handle = u.handle AND c.tenant = u.tenant
            WHERE u.username = $1 AND u.tenant = $2 ORDER BY c.created_at, c.registered
            """
        static let bindingDataTypes = [bytea, text]

        let username: String
        let tenant: TenantID

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(username.utf8Bytea)
            bindings.append(tenant)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            var columns = ColumnReader(row)
            return (
                try PostgresRows.user(&columns),
                try PostgresRows.optional(&columns, columns: PostgresRows.credentialColumnCount, PostgresRows.credential))
        }
    }

    /// Reads the ceremony (without consuming it) and the credential with its owner:
    /// ``PostgresStore/signInLookup(challengeHash:credentialID:)``.
    struct SignInLookupStatement: PostgresPreparedStatement {
        typealias Row = SignInLookup
        static let name = "latchkey_sign_in_lookup_v4"
        static let sql = """
            SELECT \(PostgresRows.ceremonyColumns("t.")), \(PostgresRows.credentialColumns("c.")), \(PostgresRows.userColumns("u."))
            FROM (SELECT) AS one
            LEFT JOIN pending_ceremonies t ON t.challenge_hash = $1 AND t.tenant = $3
            LEFT JOIN (credentials c JOIN users u ON u.handle = c.user_handle AND u.tenant = c.tenant) ON c.id = $2 AND c.tenant = $3
            """
        static let bindingDataTypes = [bytea, bytea, text]

        let challengeHash: [UInt8]
        let credentialID: [UInt8]
        let tenant: TenantID

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 3)
            bindings.append(challengeHash.bytea)
            bindings.append(credentialID.bytea)
            bindings.append(tenant)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> SignInLookup {
            var columns = ColumnReader(row)
            return SignInLookup(
                ceremony: try PostgresRows.optional(&columns, columns: PostgresRows.ceremonyColumnCount, PostgresRows.ceremony),
                credential: try PostgresRows.optional(&columns, columns: PostgresRows.credentialColumnCount, PostgresRows.credential),
                owner: try PostgresRows.optional(&columns, columns: PostgresRows.userColumnCount, PostgresRows.user))
        }
    }

    /// Reads the ceremony (without consuming it), the user its handle names and whether that handle has any
    /// security event: ``PostgresStore/registrationLookup(challengeHash:)``. The LEFT JOINs give one row whatever
    /// is missing.
    struct RegistrationLookupStatement: PostgresPreparedStatement {
        typealias Row = RegistrationLookup
        static let name = "latchkey_registration_lookup_v2"
        static let sql = """
            SELECT \(PostgresRows.ceremonyColumns("t.")), \(PostgresRows.userColumns("u.")),
                EXISTS (SELECT FROM security_events e WHERE e.user_handle = t.user_handle AND e.tenant = t.tenant)
            FROM (SELECT) AS one
            LEFT JOIN pending_ceremonies t ON t.challenge_hash = $1 AND t.tenant = $2
            LEFT JOIN users u ON u.handle = t.user_handle AND u.tenant = t.tenant
            """
        static let bindingDataTypes = [bytea, text]

        let challengeHash: [UInt8]
        let tenant: TenantID

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(challengeHash.bytea)
            bindings.append(tenant)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> RegistrationLookup {
            var columns = ColumnReader(row)
            return RegistrationLookup(
                ceremony: try PostgresRows.optional(&columns, columns: PostgresRows.ceremonyColumnCount, PostgresRows.ceremony),
                user: try PostgresRows.optional(&columns, columns: PostgresRows.userColumnCount, PostgresRows.user),
                userHandleHasHistory: try columns.next(Bool.self))
        }
    }

    /// The challenge's consumption, the counter's compare-and-set, the new session, the end of the
    /// replaced ones, and the sign-in's security event with its webhook deliveries (only when the
    /// sign-in is recorded), in one statement: ``PostgresStore/recordSignIn(_:)``. Its row: whether the
    /// challenge was consumed, whether the sign-in was recorded, and the credential's owner as the
    /// statement began (nil when the credential is gone). Of two answers to one challenge, the
    /// second waits on the ceremony's row lock and then finds it deleted.
    struct RecordSignIn: PostgresPreparedStatement {
        typealias Row = (consumed: Bool, recorded: Bool, owner: [UInt8]?)
        static let name = "latchkey_record_sign_in_v9"
        static let sql = """
            WITH consumed AS (
                DELETE FROM pending_ceremonies WHERE challenge_hash = $12 AND tenant = $27 RETURNING 1
            ), signed_in AS (
                UPDATE credentials
                SET sign_count = $1, backed_up = $2, user_verified = $3, last_used_at = $4
                WHERE id = $5 AND tenant = $27 AND sign_count = $6 AND user_handle = $7 AND EXISTS (SELECT FROM consumed)
                RETURNING user_handle
            ), started AS (
                INSERT INTO sessions (\(PostgresRows.sessionColumns()), tenant)
                SELECT $8, user_handle, $9, $10, $35, $27 FROM signed_in
            ), ended AS (
                DELETE FROM sessions WHERE token_hash = ANY($11) AND tenant = $27 AND EXISTS (SELECT FROM signed_in)
            ), serialized AS (
                SELECT \(PostgresStore.deliveryOrderLock(key: "user_handle")) FROM signed_in WHERE cardinality($24::text[]) > 0
            ), event AS (
                -- The qualification, so the lock, is evaluated before the row draws its sequence number.
                INSERT INTO security_events (id, type, occurred_at, user_handle, username, credential_id, aaguid,
                    authenticator_name, client_address, user_agent, request_id, actor, detail, reason, backup_eligible, tenant)
                SELECT $13, $14, $25, user_handle, $15, $26, $16, $17, $18, $19, $20, $21, $22, $32, $33, $27 FROM signed_in
                WHERE $13 IS NOT NULL AND (cardinality($24::text[]) = 0 OR EXISTS (SELECT FROM serialized))
                RETURNING id, occurred_at, user_handle
            ), locked AS (
                -- The event's statistics (PostgresStore+Statistics.swift), under the tenant's statistics lock:
                SELECT \(PostgresStore.sharedStatisticsLock(tenant: "$27")) FROM event
            ), active AS (
                -- the user active once a day,
                INSERT INTO statistics_users (tenant, user_handle, passkeys, last_active_day)
                SELECT $27, user_handle, 0, $28 FROM event, locked WHERE $34
                ON CONFLICT (tenant, user_handle) DO UPDATE SET last_active_day = EXCLUDED.last_active_day
                WHERE statistics_users.last_active_day IS DISTINCT FROM EXCLUDED.last_active_day
                RETURNING 1
            ), counted AS (
                -- and the day's counts, in one of the row's slots.
                INSERT INTO daily_statistics (tenant, day, metric, dimension, slot, count)
                SELECT $27, $28, metric, dimension, $29, 1 FROM event, locked, unnest($30::text[], $31::text[]) AS c(metric, dimension)
                UNION ALL SELECT $27, $28, '\(StatisticsMetric.activeUsers.rawValue)', '', $29, 1 FROM active
                ON CONFLICT (tenant, day, metric, dimension, slot) DO UPDATE SET count = daily_statistics.count + EXCLUDED.count
            ), deliveries AS (
                INSERT INTO webhook_deliveries (event_id, receiver, ordering_key, state, created_at, next_attempt_at, retry_until,
                    tenant)
                SELECT event.id, receiver, event.user_handle, 'pending', event.occurred_at, event.occurred_at, $23, $27
                FROM event, unnest($24::text[]) AS receiver
            )
            SELECT EXISTS (SELECT FROM consumed), EXISTS (SELECT FROM signed_in), c.user_handle
            FROM (SELECT) AS one LEFT JOIN credentials c ON c.id = $5 AND c.tenant = $27
            """
        static let bindingDataTypes = [
            int8, bool, bool, timestamptz, bytea, int8, bytea, bytea, timestamptz, timestamptz, PostgresDataType.byteaArray, bytea,
            text, text, bytea, bytea, text, text, text, text, text, bytea, timestamptz, PostgresDataType.textArray, timestamptz, bytea,
            text, text, PostgresDataType.int2, PostgresDataType.textArray, PostgresDataType.textArray, text, bool, bool, text,
        ]

        let signIn: CompletedSignIn
        /// The sign-in's one event, written with it (and its deliveries to `outbox`'s receivers, and its statistics).
        /// Its statistics must be counts of one (as a sign-in's are), with no user change but ``UserStatisticsChange/signedIn``.
        let event: SecurityEvent?
        let outbox: WebhookOutbox
        let tenant: TenantID
        /// The event's statistics, made once.
        let statistics: EventStatistics?

        init(signIn: CompletedSignIn, event: SecurityEvent?, outbox: WebhookOutbox, tenant: TenantID) {
            self.signIn = signIn
            self.event = event
            self.outbox = outbox
            self.tenant = tenant
            statistics = event.map(EventStatistics.init(of:))
        }

        /// Whether this statement counts its event as the event's statistics say: counts of one, and no user change but
        /// ``UserStatisticsChange/signedIn`` (a sign-in's); otherwise the event goes through ``PostgresStore/insert``.
        var countsItsEvent: Bool {
            guard let statistics else { return true }
            return statistics.counts.allSatisfy { $0.amount == 1 } && (statistics.userChange.map { $0.change == .signedIn } ?? true)
        }

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 35)
            bindings.append(Int64(signIn.signCount))
            bindings.append(signIn.backedUp)
            bindings.append(signIn.userVerified)
            bindings.append(signIn.at)
            bindings.append(signIn.credentialID.bytea)
            bindings.append(Int64(signIn.previousSignCount))
            bindings.append(signIn.session.userHandle.bytea)
            bindings.append(signIn.session.tokenHash.bytea)
            bindings.append(signIn.session.createdAt)
            bindings.append(signIn.session.expiresAt)
            bindings.append(signIn.endingSessions.map(\.bytea))
            bindings.append(signIn.challengeHash.bytea)
            bindings.append(event?.id)
            bindings.append(event?.type.rawValue)
            bindings.append(event?.username?.utf8Bytea)
            bindings.append(event?.aaguid?.bytea)
            bindings.append(event?.authenticatorName)
            bindings.append(event?.clientAddress)
            bindings.append(event?.userAgent)
            bindings.append(event?.requestID)
            bindings.append(event?.actor.storedText)
            bindings.append(event?.detail?.utf8Bytea)
            bindings.append(signIn.at.addingTimeInterval(outbox.retryWindow))
            bindings.append(outbox.receivers)
            bindings.append(event?.occurredAt)
            bindings.append(event?.credentialID?.bytea)
            bindings.append(tenant)
            bindings.append((statistics?.day ?? StatisticsDay(signIn.at)).description)
            bindings.append(PostgresStore.statisticsSlot())
            bindings.append(statistics?.counts.map(\.metric.rawValue) ?? [])
            bindings.append(statistics?.counts.map(\.dimension) ?? [])
            bindings.append(event?.reason)
            bindings.append(event?.backupEligible)
            bindings.append(statistics?.userChange?.change == .signedIn)
            bindings.append(signIn.session.methods.joined(separator: " "))
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> (consumed: Bool, recorded: Bool, owner: [UInt8]?) {
            var columns = ColumnReader(row)
            return (try columns.next(Bool.self), try columns.next(Bool.self), try columns.optionalBytes())
        }
    }

    /// The live session for a token, with its user: ``PostgresStore/session(tokenHash:now:)``.
    struct LiveSession: PostgresPreparedStatement {
        typealias Row = SessionWithUser
        static let name = "latchkey_live_session_v5"
        static let sql = """
            SELECT \(PostgresRows.sessionColumns("s.")), \(PostgresRows.userColumns("u."))
            FROM sessions s JOIN users u ON u.handle = s.user_handle AND u.tenant = s.tenant
            WHERE s.token_hash = $1 AND s.tenant = $3 AND s.expires_at > $2
            """
        static let bindingDataTypes = [bytea, timestamptz, text]

        let tokenHash: [UInt8]
        let now: Date
        let tenant: TenantID

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 3)
            bindings.append(tokenHash.bytea)
            bindings.append(now)
            bindings.append(tenant)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> SessionWithUser {
            var columns = ColumnReader(row)
            return SessionWithUser(session: try PostgresRows.session(&columns), user: try PostgresRows.user(&columns))
        }
    }
}
