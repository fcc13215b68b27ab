import Foundation
import LatchkeyStore
import LatchkeyStoreSQL
import PostgresNIO

/// The OpenID provider's statements on every provider sign-in and refresh, prepared as ``SignInStatements``' are: a
/// client's read, a grant's write, its read with its user, client and contact, and its replacement with its event.
enum GrantStatements {
    private static let bytea = PostgresDataType.bytea, text = PostgresDataType.text
    private static let timestamptz = PostgresDataType.timestamptz, int8 = PostgresDataType.int8
    private static let textArray = PostgresDataType.textArray

    /// ``PostgresStore/oauthClient(id:)``.
    struct Client: PostgresPreparedStatement {
        typealias Row = OAuthClientRecord
        static let name = "latchkey_oauth_client_v1"
        static let sql = "SELECT \(StoreColumns.oauthClients()) FROM oauth_clients WHERE client_id = $1 AND tenant = $2"
        static let bindingDataTypes = [text, text]

        let id: String
        let tenant: TenantID

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(id)
            bindings.append(tenant)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> OAuthClientRecord {
            var columns = ColumnReader(row)
            return try GrantRows.client(&columns)
        }
    }

    /// ``PostgresStore/saveOAuthGrant(_:recording:)`` with no event (an authorization's code).
    struct SaveGrant: PostgresPreparedStatement {
        typealias Row = ()
        static let name = "latchkey_save_oauth_grant_v1"
        static let sql = """
            INSERT INTO oauth_grants (\(StoreColumns.oauthGrants()), tenant)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)
            """
        static let bindingDataTypes = [
            bytea, text, bytea, textArray, text, text, text, timestamptz, textArray, bytea, timestamptz, timestamptz, bytea, timestamptz,
            bytea, timestamptz, timestamptz, timestamptz, timestamptz, int8, bytea, text,
        ]

        let grant: OAuthGrantRecord
        let tenant: TenantID

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 22)
            bindings.append(grant.id.bytea)
            bindings.append(grant.clientID)
            bindings.append(grant.userHandle.bytea)
            bindings.append(grant.scopes)
            bindings.append(grant.redirectURI)
            bindings.append(grant.nonce)
            bindings.append(grant.codeChallenge)
            bindings.append(grant.authTime)
            bindings.append(grant.methods)
            bindings.append(grant.codeHash.bytea)
            bindings.append(grant.codeExpiresAt)
            bindings.append(grant.codeUsedAt)
            bindings.append(grant.accessHash?.bytea)
            bindings.append(grant.accessExpiresAt)
            bindings.append(grant.refreshHash?.bytea)
            bindings.append(grant.refreshExpiresAt)
            bindings.append(grant.revokedAt)
            bindings.append(grant.createdAt)
            bindings.append(grant.expiresAt)
            bindings.append(grant.revision)
            bindings.append(grant.spentRefreshColumn.bytea)
            bindings.append(tenant)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws {}
    }

    /// ``PostgresStore/oauthGrant(id:)``: the grant with its user, its client and the user's contact.
    struct Lookup: PostgresPreparedStatement {
        typealias Row = OAuthGrantLookup
        static let name = "latchkey_oauth_grant_lookup_v1"
        static let sql = """
            SELECT \(StoreColumns.oauthGrants("g.")), \(PostgresRows.userColumns("u.")), \(StoreColumns.oauthClients("c.")), k.kind, k.value
            FROM oauth_grants g
            JOIN users u ON u.handle = g.user_handle AND u.tenant = g.tenant
            JOIN oauth_clients c ON c.client_id = g.client_id AND c.tenant = g.tenant
            LEFT JOIN user_contacts k ON k.tenant = g.tenant AND k.user_handle = g.user_handle
            WHERE g.id = $1 AND g.tenant = $2
            """
        static let bindingDataTypes = [bytea, text]

        let id: [UInt8]
        let tenant: TenantID

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(id.bytea)
            bindings.append(tenant)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> OAuthGrantLookup {
            var columns = ColumnReader(row)
            let (grant, user, client) = (try GrantRows.grant(&columns), try PostgresRows.user(&columns), try GrantRows.client(&columns))
            let kind = try columns.next(String?.self), value = try columns.optionalUTF8()
            let contact = kind.flatMap(UserContact.Kind.init(rawValue:)).flatMap { kind in value.map { UserContact(kind: kind, value: $0) } }
            return OAuthGrantLookup(grant: grant, user: user, client: client, contact: contact)
        }
    }

    /// ``PostgresStore/replaceOAuthGrant(_:recording:)``: the compare-and-set on the grant's revision and, when it
    /// wrote, its one event (``EventInStatement``). Its row says whether it wrote.
    struct Replace: PostgresPreparedStatement {
        typealias Row = Bool
        static let name = "latchkey_replace_oauth_grant_v1"
        static let sql = """
            WITH replaced AS (
                UPDATE oauth_grants SET code_used_at = $1, access_hash = $2, access_expires_at = $3, refresh_hash = $4,
                    refresh_expires_at = $5, revoked_at = $6, expires_at = $7, spent_refresh_hashes = $8, revision = revision + 1
                WHERE id = $9 AND tenant = $10 AND revision = $11 RETURNING 1
            )\(EventInStatement.sql(after: "replaced", tenant: "$10", first: 12))
            SELECT EXISTS (SELECT FROM replaced)
            """
        static let bindingDataTypes = [timestamptz, bytea, timestamptz, bytea, timestamptz, timestamptz, timestamptz, bytea, bytea, text, int8]
            + EventInStatement.dataTypes

        let grant: OAuthGrantRecord
        let event: EventInStatement

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 11 + EventInStatement.parameterCount)
            bindings.append(grant.codeUsedAt)
            bindings.append(grant.accessHash?.bytea)
            bindings.append(grant.accessExpiresAt)
            bindings.append(grant.refreshHash?.bytea)
            bindings.append(grant.refreshExpiresAt)
            bindings.append(grant.revokedAt)
            bindings.append(grant.expiresAt)
            bindings.append(grant.spentRefreshColumn.bytea)
            bindings.append(grant.id.bytea)
            bindings.append(event.tenant)
            bindings.append(grant.revision)
            event.append(to: &bindings)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Bool {
            var columns = ColumnReader(row)
            return try columns.next(Bool.self)
        }
    }
}

/// How the provider's rows read, for the statements above and ``PostgresStore``'s other calls.
enum GrantRows {
    static func client(_ row: inout ColumnReader) throws -> OAuthClientRecord {
        OAuthClientRecord(
            clientID: try row.next(), name: try row.utf8(), secretHash: try row.optionalBytes(), redirectURIs: try row.next(),
            postLogoutRedirectURIs: try row.next(), scopes: try row.next(), consent: try row.next(),
            accessTokenLifetime: Int(try row.next(Int64.self)), refreshTokenLifetime: Int(try row.next(Int64.self)),
            createdAt: try row.next(), updatedAt: try row.next(), allowedGroups: try row.next(), deviceAuthorization: try row.next())
    }

    static func grant(_ row: inout ColumnReader) throws -> OAuthGrantRecord {
        OAuthGrantRecord(
            id: try row.bytes(), clientID: try row.next(), userHandle: try row.bytes(), scopes: try row.next(), redirectURI: try row.next(),
            nonce: try row.next(), codeChallenge: try row.next(), authTime: try row.next(), methods: try row.next(), codeHash: try row.bytes(),
            codeExpiresAt: try row.next(), codeUsedAt: try row.next(), accessHash: try row.optionalBytes(), accessExpiresAt: try row.next(),
            refreshHash: try row.optionalBytes(), refreshExpiresAt: try row.next(), revokedAt: try row.next(), createdAt: try row.next(),
            expiresAt: try row.next(), revision: try row.next(), spentRefreshHashes: OAuthGrantRecord.spentRefreshHashes(fromColumn: try row.bytes()))
    }
}
