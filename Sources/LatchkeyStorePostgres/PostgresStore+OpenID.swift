import Foundation
import LatchkeyStore
import LatchkeyStoreSQL
import PostgresNIO

/// The OpenID provider's clients and grants.
extension PostgresStore {
    private static let clientColumns = StoreColumns.oauthClients()
    private static let grantColumns = StoreColumns.oauthGrants()

    public func saveOAuthClient(_ client: OAuthClientRecord, recording events: [SecurityEvent]) async throws {
        _ = try await count("""
            INSERT INTO oauth_clients (\(unescaped: Self.clientColumns), tenant)
            VALUES (
                \(client.clientID), \(client.name.utf8Bytea), \(client.secretHash?.bytea), \(client.redirectURIs),
                \(client.postLogoutRedirectURIs), \(client.scopes), \(client.consent), \(Int64(client.accessTokenLifetime)),
                \(Int64(client.refreshTokenLifetime)), \(client.createdAt), \(client.updatedAt), \(client.allowedGroups),
                \(client.deviceAuthorization), \(tenant)
            ) RETURNING 1
            """, recording: events)
    }

    public func oauthClient(id: String) async throws -> OAuthClientRecord? {
        try await rows(GrantStatements.Client(id: id, tenant: tenant)).first
    }

    public func oauthClients(limit: Int) async throws -> [OAuthClientRecord] {
        try await rows("""
            SELECT \(unescaped: Self.clientColumns) FROM oauth_clients WHERE tenant = \(tenant)
            ORDER BY created_at, client_id LIMIT \(Int64(limit))
            """) { try GrantRows.client(&$0) }
    }

    public func updateOAuthClient(_ client: OAuthClientRecord, recording events: [SecurityEvent]) async throws -> Bool {
        try await count("""
            UPDATE oauth_clients SET name = \(client.name.utf8Bytea), secret_hash = \(client.secretHash?.bytea),
                redirect_uris = \(client.redirectURIs), post_logout_redirect_uris = \(client.postLogoutRedirectURIs),
                scopes = \(client.scopes), consent = \(client.consent), access_token_lifetime = \(Int64(client.accessTokenLifetime)),
                refresh_token_lifetime = \(Int64(client.refreshTokenLifetime)), updated_at = \(client.updatedAt),
                allowed_groups = \(client.allowedGroups), device_authorization = \(client.deviceAuthorization)
            WHERE client_id = \(client.clientID) AND tenant = \(tenant) RETURNING 1
            """, recording: events) > 0
    }

    public func deleteOAuthClient(id: String, recording events: [SecurityEvent]) async throws -> Bool {
        try await count("DELETE FROM oauth_clients WHERE client_id = \(id) AND tenant = \(tenant) RETURNING 1", recording: events) > 0
    }

    public func saveOAuthGrant(_ grant: OAuthGrantRecord, recording events: [SecurityEvent]) async throws {
        guard events.isEmpty else {
            _ = try await count("""
                INSERT INTO oauth_grants (\(unescaped: Self.grantColumns), tenant)
                VALUES (
                    \(grant.id.bytea), \(grant.clientID), \(grant.userHandle.bytea), \(grant.scopes), \(grant.redirectURI), \(grant.nonce),
                    \(grant.codeChallenge), \(grant.authTime), \(grant.methods), \(grant.codeHash.bytea), \(grant.codeExpiresAt),
                    \(grant.codeUsedAt), \(grant.accessHash?.bytea), \(grant.accessExpiresAt), \(grant.refreshHash?.bytea),
                    \(grant.refreshExpiresAt), \(grant.revokedAt), \(grant.createdAt), \(grant.expiresAt), \(grant.revision),
                    \(grant.spentRefreshColumn.bytea), \(tenant)
                ) RETURNING 1
                """, recording: events)
            return
        }
        try await execute(GrantStatements.SaveGrant(grant: grant, tenant: tenant))
    }

    public func oauthGrant(id: [UInt8]) async throws -> OAuthGrantLookup? {
        try await rows(GrantStatements.Lookup(id: id, tenant: tenant)).first
    }

    /// One prepared statement when the grant's event can be written in it (``EventInStatement/canWrite(_:)``, as every
    /// event the provider records can); otherwise a transaction.
    public func replaceOAuthGrant(_ grant: OAuthGrantRecord, recording events: [SecurityEvent]) async throws -> Bool {
        guard EventInStatement.canWrite(events) else {
            return try await count("""
                UPDATE oauth_grants SET code_used_at = \(grant.codeUsedAt), access_hash = \(grant.accessHash?.bytea),
                    access_expires_at = \(grant.accessExpiresAt), refresh_hash = \(grant.refreshHash?.bytea),
                    refresh_expires_at = \(grant.refreshExpiresAt), revoked_at = \(grant.revokedAt), expires_at = \(grant.expiresAt),
                    spent_refresh_hashes = \(grant.spentRefreshColumn.bytea), revision = revision + 1
                WHERE id = \(grant.id.bytea) AND tenant = \(tenant) AND revision = \(grant.revision) RETURNING 1
                """, recording: events) > 0
        }
        let event = EventInStatement(events.first, outbox: webhooks, tenant: tenant)
        return try await rows(GrantStatements.Replace(grant: grant, event: event)).first ?? false
    }

    public func revokeOAuthGrant(id: [UInt8], now: Date, recording events: [SecurityEvent]) async throws -> Bool {
        try await count("""
            UPDATE oauth_grants SET revoked_at = \(now), expires_at = least(expires_at, \(now.addingTimeInterval(86_400))),
                revision = revision + 1
            WHERE id = \(id.bytea) AND tenant = \(tenant) AND revoked_at IS NULL RETURNING 1
            """, recording: events) > 0
    }

    public func revokeOAuthGrants(ofUser handle: [UInt8], now: Date) async throws -> Int {
        try await count("""
            UPDATE oauth_grants SET revoked_at = \(now), expires_at = least(expires_at, \(now.addingTimeInterval(86_400))),
                revision = revision + 1
            WHERE tenant = \(tenant) AND user_handle = \(handle.bytea) AND revoked_at IS NULL RETURNING 1
            """)
    }

    public func oauthConsent(ofUser handle: [UInt8], client clientID: String) async throws -> [String]? {
        try await firstRow("""
            SELECT scopes FROM oauth_consents WHERE tenant = \(tenant) AND user_handle = \(handle.bytea) AND client_id = \(clientID)
            """) { try $0.next([String].self) }
    }

    public func saveOAuthConsent(ofUser handle: [UInt8], client clientID: String, scopes: [String], at: Date) async throws {
        try await execute("""
            INSERT INTO oauth_consents (tenant, user_handle, client_id, scopes, granted_at)
            VALUES (\(tenant), \(handle.bytea), \(clientID), \(scopes), \(at))
            ON CONFLICT (tenant, user_handle, client_id) DO UPDATE SET scopes = EXCLUDED.scopes, granted_at = EXCLUDED.granted_at
            """)
    }

    // MARK: Device authorizations

    private static let deviceColumns = StoreColumns.oauthDeviceAuthorizations()

    public func saveOAuthDeviceAuthorization(_ authorization: OAuthDeviceAuthorizationRecord) async throws {
        try await execute("""
            INSERT INTO oauth_device_authorizations (\(unescaped: Self.deviceColumns), tenant)
            VALUES (
                \(authorization.grantID.bytea), \(authorization.deviceCodeHash.bytea), \(authorization.userCodeHash.bytea),
                \(authorization.clientID), \(authorization.scopes), \(authorization.createdAt), \(authorization.expiresAt),
                \(Int64(authorization.interval)), \(authorization.polledAt), \(authorization.decision?.rawValue),
                \(authorization.userHandle?.bytea), \(tenant)
            )
            """)
    }

    public func oauthDeviceAuthorization(grantID: [UInt8]) async throws -> OAuthDeviceAuthorizationRecord? {
        try await firstRow("""
            SELECT \(unescaped: Self.deviceColumns) FROM oauth_device_authorizations WHERE grant_id = \(grantID.bytea) AND tenant = \(tenant)
            """) { try Self.deviceAuthorization(&$0) }
    }

    public func oauthDeviceAuthorization(userCodeHash: [UInt8]) async throws -> OAuthDeviceAuthorizationRecord? {
        try await firstRow("""
            SELECT \(unescaped: Self.deviceColumns) FROM oauth_device_authorizations
            WHERE user_code_hash = \(userCodeHash.bytea) AND tenant = \(tenant)
            """) { try Self.deviceAuthorization(&$0) }
    }

    public func noteOAuthDevicePoll(grantID: [UInt8], at: Date, interval: Int) async throws {
        try await execute("""
            UPDATE oauth_device_authorizations SET polled_at = \(at), interval = \(Int64(interval))
            WHERE grant_id = \(grantID.bytea) AND tenant = \(tenant) AND decision IS NULL
            """)
    }

    public func decideOAuthDeviceAuthorization(
        grantID: [UInt8], _ decision: OAuthDeviceAuthorizationRecord.Decision, by userHandle: [UInt8], grant: OAuthGrantRecord?, now: Date
    ) async throws -> Bool {
        let tenant = tenant
        return try await transaction { connection in
            let decided = try await Self.rows("""
                UPDATE oauth_device_authorizations SET decision = \(decision.rawValue), user_handle = \(userHandle.bytea)
                WHERE grant_id = \(grantID.bytea) AND tenant = \(tenant) AND decision IS NULL AND expires_at > \(now) RETURNING 1
                """, on: connection) { _ in true }
            guard !decided.isEmpty else { return false }
            if let grant {
                for try await _ in try await Self.send(GrantStatements.SaveGrant(grant: grant, tenant: tenant), on: connection) {}
            }
            return true
        }
    }

    private static func deviceAuthorization(_ row: inout ColumnReader) throws -> OAuthDeviceAuthorizationRecord {
        OAuthDeviceAuthorizationRecord(
            grantID: try row.bytes(), deviceCodeHash: try row.bytes(), userCodeHash: try row.bytes(), clientID: try row.next(),
            scopes: try row.next(), createdAt: try row.next(), expiresAt: try row.next(), interval: Int(try row.next(Int64.self)),
            polledAt: try row.next(), decision: try row.next(String?.self).flatMap(OAuthDeviceAuthorizationRecord.Decision.init(rawValue:)),
            userHandle: try row.optionalBytes())
    }
}
