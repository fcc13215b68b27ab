import Foundation
import LatchkeyStore
import LatchkeyStoreSQL

/// The OpenID provider's clients and grants. Lists are kept in one text column each: scopes and methods
/// space-separated (as OAuth writes scopes), URIs one a line (neither can hold whitespace).
extension SQLiteStore {
    private static let clientColumns = StoreColumns.oauthClients()
    private static let grantColumns = StoreColumns.oauthGrants()
    private static let insertClient = "INSERT INTO oauth_clients (\(clientColumns), tenant) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, current_tenant())"
    private static let clientByID = "SELECT \(clientColumns) FROM oauth_clients WHERE client_id = ? AND tenant = current_tenant()"
    private static let allClients = "SELECT \(clientColumns) FROM oauth_clients WHERE tenant = current_tenant() ORDER BY created_at, client_id LIMIT ?"
    private static let updateClient = """
        UPDATE oauth_clients SET name = ?2, secret_hash = ?3, redirect_uris = ?4, post_logout_redirect_uris = ?5, scopes = ?6,
            consent = ?7, access_token_lifetime = ?8, refresh_token_lifetime = ?9, updated_at = ?10, allowed_groups = ?11,
            device_authorization = ?12
        WHERE client_id = ?1 AND tenant = current_tenant()
        """
    private static let deleteClient = "DELETE FROM oauth_clients WHERE client_id = ? AND tenant = current_tenant()"
    private static let insertGrant = """
        INSERT INTO oauth_grants (\(grantColumns), tenant)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, current_tenant())
        """
    private static let grantByID = """
        SELECT \(StoreColumns.oauthGrants("g.")), \(SQLiteRows.userColumns("u.")), \(StoreColumns.oauthClients("c.")), k.kind, k.value
        FROM oauth_grants g
        JOIN users u ON u.handle = g.user_handle AND u.tenant = g.tenant
        JOIN oauth_clients c ON c.client_id = g.client_id AND c.tenant = g.tenant
        LEFT JOIN user_contacts k ON k.tenant = g.tenant AND k.user_handle = g.user_handle
        WHERE g.id = ? AND g.tenant = current_tenant()
        """
    private static let replaceGrant = """
        UPDATE oauth_grants SET code_used_at = ?3, access_hash = ?4, access_expires_at = ?5, refresh_hash = ?6,
            refresh_expires_at = ?7, revoked_at = ?8, expires_at = ?9, spent_refresh_hashes = ?10, revision = revision + 1
        WHERE id = ?1 AND tenant = current_tenant() AND revision = ?2
        """
    private static let revokeGrant = """
        UPDATE oauth_grants SET revoked_at = ?2, expires_at = min(expires_at, ?2 + 86400), revision = revision + 1
        WHERE id = ?1 AND tenant = current_tenant() AND revoked_at IS NULL
        """
    private static let revokeGrantsOfUser = """
        UPDATE oauth_grants SET revoked_at = ?2, expires_at = min(expires_at, ?2 + 86400), revision = revision + 1
        WHERE tenant = current_tenant() AND user_handle = ?1 AND revoked_at IS NULL
        """
    private static let consentOf = "SELECT scopes FROM oauth_consents WHERE tenant = current_tenant() AND user_handle = ? AND client_id = ?"
    private static let upsertConsent = """
        INSERT INTO oauth_consents (tenant, user_handle, client_id, scopes, granted_at) VALUES (current_tenant(), ?1, ?2, ?3, ?4)
        ON CONFLICT (tenant, user_handle, client_id) DO UPDATE SET scopes = excluded.scopes, granted_at = excluded.granted_at
        """
    private static let userOffset: Int32 = 21
    private static let clientOffset: Int32 = 27
    private static let contactOffset: Int32 = 40
    private static let deviceColumns = StoreColumns.oauthDeviceAuthorizations()
    private static let insertDevice = """
        INSERT INTO oauth_device_authorizations (\(deviceColumns), tenant) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, current_tenant())
        """
    private static let deviceByGrant = "SELECT \(deviceColumns) FROM oauth_device_authorizations WHERE grant_id = ? AND tenant = current_tenant()"
    private static let deviceByUserCode = """
        SELECT \(deviceColumns) FROM oauth_device_authorizations WHERE user_code_hash = ? AND tenant = current_tenant()
        """
    private static let notePoll = """
        UPDATE oauth_device_authorizations SET polled_at = ?2, interval = ?3
        WHERE grant_id = ?1 AND tenant = current_tenant() AND decision IS NULL
        """
    private static let decide = """
        UPDATE oauth_device_authorizations SET decision = ?2, user_handle = ?3
        WHERE grant_id = ?1 AND tenant = current_tenant() AND decision IS NULL AND expires_at > ?4
        """

    public func saveOAuthClient(_ client: OAuthClientRecord, recording events: [SecurityEvent]) async throws {
        try await withTransaction { database in
            try database.withStatement(Self.insertClient) { statement in
                try Self.bindClient(client, to: statement)
                do {
                    try statement.step()
                } catch is SQLiteConstraintError {
                    throw StoreError(.nameTaken, "a client with the ID \"\(client.clientID)\" exists already")
                }
            }
            try insert(events, into: database)
        }
    }

    public func oauthClient(id: String) async throws -> OAuthClientRecord? {
        try await withStatement(Self.clientByID) { row in
            try row.bind(id)
            return try row.step() ? Self.client(row) : nil
        }
    }

    public func oauthClients(limit: Int) async throws -> [OAuthClientRecord] {
        try await withStatement(Self.allClients) { row in
            try row.bind(Int64(limit))
            var clients: [OAuthClientRecord] = []
            while try row.step() { clients.append(Self.client(row)) }
            return clients
        }
    }

    public func updateOAuthClient(_ client: OAuthClientRecord, recording events: [SecurityEvent]) async throws -> Bool {
        try await changing(Self.updateClient, recording: events) { try Self.bindClient(client, to: $0, updating: true) } > 0
    }

    public func deleteOAuthClient(id: String, recording events: [SecurityEvent]) async throws -> Bool {
        try await changing(Self.deleteClient, recording: events) { try $0.bind(id) } > 0
    }

    public func saveOAuthGrant(_ grant: OAuthGrantRecord, recording events: [SecurityEvent]) async throws {
        try await withTransaction { database in
            try Self.insert(grant, into: database)
            try insert(events, into: database)
        }
    }

    private static func insert(_ grant: OAuthGrantRecord, into database: SQLiteConnection) throws {
        try database.withStatement(insertGrant) { statement in
            try statement.bind(
                grant.id, grant.clientID, grant.userHandle, grant.scopes.joined(separator: " "), grant.redirectURI, grant.nonce,
                grant.codeChallenge, grant.authTime, grant.methods.joined(separator: " "), grant.codeHash, grant.codeExpiresAt,
                grant.codeUsedAt, grant.accessHash, grant.accessExpiresAt, grant.refreshHash, grant.refreshExpiresAt, grant.revokedAt,
                grant.createdAt, grant.expiresAt, grant.revision, grant.spentRefreshColumn)
            do {
                try statement.step()
            } catch let error as SQLiteConstraintError where error.code == SQLiteConstraintError.foreignKey {
                throw StoreError(.userNotFound, "the user or the client of this grant does not exist")
            }
        }
    }

    public func oauthGrant(id: [UInt8]) async throws -> OAuthGrantLookup? {
        try await withStatement(Self.grantByID) { row in
            try row.bind(id)
            guard try row.step() else { return nil }
            let contact = row.isNull(Self.contactOffset)
                ? nil : Self.contact(kind: row.text(Self.contactOffset), value: row.text(Self.contactOffset + 1))
            return OAuthGrantLookup(
                grant: Self.grant(row), user: SQLiteRows.user(row, at: Self.userOffset), client: Self.client(row, at: Self.clientOffset),
                contact: contact)
        }
    }

    public func replaceOAuthGrant(_ grant: OAuthGrantRecord, recording events: [SecurityEvent]) async throws -> Bool {
        try await changing(Self.replaceGrant, recording: events) { statement in
            try statement.bind(
                grant.id, grant.revision, grant.codeUsedAt, grant.accessHash, grant.accessExpiresAt, grant.refreshHash,
                grant.refreshExpiresAt, grant.revokedAt, grant.expiresAt, grant.spentRefreshColumn)
        } > 0
    }

    public func revokeOAuthGrant(id: [UInt8], now: Date, recording events: [SecurityEvent]) async throws -> Bool {
        try await changing(Self.revokeGrant, recording: events) { try $0.bind(id, now) } > 0
    }

    public func revokeOAuthGrants(ofUser handle: [UInt8], now: Date) async throws -> Int {
        try await changing(Self.revokeGrantsOfUser) { try $0.bind(handle, now) }
    }

    public func oauthConsent(ofUser handle: [UInt8], client clientID: String) async throws -> [String]? {
        try await withStatement(Self.consentOf) { row in
            try row.bind(handle, clientID)
            return try row.step() ? SQLiteRows.list(row.text(0), separator: " ") : nil
        }
    }

    public func saveOAuthConsent(ofUser handle: [UInt8], client clientID: String, scopes: [String], at: Date) async throws {
        _ = try await changing(Self.upsertConsent) { try $0.bind(handle, clientID, scopes.joined(separator: " "), at) }
    }

    public func saveOAuthDeviceAuthorization(_ authorization: OAuthDeviceAuthorizationRecord) async throws {
        _ = try await withStatement(Self.insertDevice) { statement in
            try statement.bind(
                authorization.grantID, authorization.deviceCodeHash, authorization.userCodeHash, authorization.clientID,
                authorization.scopes.joined(separator: " "), authorization.createdAt, authorization.expiresAt, Int64(authorization.interval),
                authorization.polledAt, authorization.decision?.rawValue, authorization.userHandle)
            do {
                try statement.step()
            } catch let error as SQLiteConstraintError where error.code == SQLiteConstraintError.foreignKey {
                throw StoreError(.userNotFound, "the client of this device authorization does not exist")
            } catch is SQLiteConstraintError {
                throw StoreError(.nameTaken, "this user code is in use")
            }
        }
    }

    public func oauthDeviceAuthorization(grantID: [UInt8]) async throws -> OAuthDeviceAuthorizationRecord? {
        try await withStatement(Self.deviceByGrant) { row in
            try row.bind(grantID)
            return try row.step() ? Self.deviceAuthorization(row) : nil
        }
    }

    public func oauthDeviceAuthorization(userCodeHash: [UInt8]) async throws -> OAuthDeviceAuthorizationRecord? {
        try await withStatement(Self.deviceByUserCode) { row in
            try row.bind(userCodeHash)
            return try row.step() ? Self.deviceAuthorization(row) : nil
        }
    }

    public func noteOAuthDevicePoll(grantID: [UInt8], at: Date, interval: Int) async throws {
        _ = try await changing(Self.notePoll) { try $0.bind(grantID, at, Int64(interval)) }
    }

    public func decideOAuthDeviceAuthorization(
        grantID: [UInt8], _ decision: OAuthDeviceAuthorizationRecord.Decision, by userHandle: [UInt8], grant: OAuthGrantRecord?, now: Date
    ) async throws -> Bool {
        try await withTransaction { database in
            let decided = try database.withStatement(Self.decide) { statement in
                try statement.bind(grantID, decision.rawValue, userHandle, now)
                try statement.step()
                return database.changes
            }
            guard decided > 0 else { return false }
            if let grant { try Self.insert(grant, into: database) }
            return true
        }
    }

    // MARK: Rows

    private static func deviceAuthorization(_ row: SQLiteStatement) -> OAuthDeviceAuthorizationRecord {
        OAuthDeviceAuthorizationRecord(
            grantID: row.blob(0), deviceCodeHash: row.blob(1), userCodeHash: row.blob(2), clientID: row.text(3),
            scopes: SQLiteRows.list(row.text(4), separator: " "), createdAt: row.date(5), expiresAt: row.date(6),
            interval: Int(row.int64(7)), polledAt: row.optionalDate(8),
            decision: row.optionalText(9).flatMap(OAuthDeviceAuthorizationRecord.Decision.init(rawValue:)), userHandle: row.optionalBlob(10))
    }

    private static func bindClient(_ client: OAuthClientRecord, to statement: SQLiteStatement, updating: Bool = false) throws {
        let redirects = client.redirectURIs.joined(separator: "\n"), logouts = client.postLogoutRedirectURIs.joined(separator: "\n")
        let scopes = client.scopes.joined(separator: " "), groups = client.allowedGroups.joined(separator: "\n")
        if updating {
            try statement.bind(
                client.clientID, client.name, client.secretHash, redirects, logouts, scopes, client.consent,
                Int64(client.accessTokenLifetime), Int64(client.refreshTokenLifetime), client.updatedAt, groups, client.deviceAuthorization)
        } else {
            try statement.bind(
                client.clientID, client.name, client.secretHash, redirects, logouts, scopes, client.consent,
                Int64(client.accessTokenLifetime), Int64(client.refreshTokenLifetime), client.createdAt, client.updatedAt, groups,
                client.deviceAuthorization)
        }
    }

    private static func client(_ row: SQLiteStatement, at offset: Int32 = 0) -> OAuthClientRecord {
        OAuthClientRecord(
            clientID: row.text(offset), name: row.text(offset + 1), secretHash: row.optionalBlob(offset + 2),
            redirectURIs: SQLiteRows.list(row.text(offset + 3), separator: "\n"),
            postLogoutRedirectURIs: SQLiteRows.list(row.text(offset + 4), separator: "\n"),
            scopes: SQLiteRows.list(row.text(offset + 5), separator: " "), consent: row.bool(offset + 6),
            accessTokenLifetime: Int(row.int64(offset + 7)),
            refreshTokenLifetime: Int(row.int64(offset + 8)), createdAt: row.date(offset + 9), updatedAt: row.date(offset + 10),
            allowedGroups: SQLiteRows.list(row.text(offset + 11), separator: "\n"), deviceAuthorization: row.bool(offset + 12))
    }

    private static func grant(_ row: SQLiteStatement) -> OAuthGrantRecord {
        OAuthGrantRecord(
            id: row.blob(0), clientID: row.text(1), userHandle: row.blob(2), scopes: SQLiteRows.list(row.text(3), separator: " "),
            redirectURI: row.text(4), nonce: row.optionalText(5), codeChallenge: row.optionalText(6), authTime: row.date(7),
            methods: SQLiteRows.list(row.text(8), separator: " "),
            codeHash: row.blob(9), codeExpiresAt: row.date(10), codeUsedAt: row.optionalDate(11), accessHash: row.optionalBlob(12),
            accessExpiresAt: row.optionalDate(13), refreshHash: row.optionalBlob(14), refreshExpiresAt: row.optionalDate(15),
            revokedAt: row.optionalDate(16), createdAt: row.date(17), expiresAt: row.date(18), revision: row.int64(19),
            spentRefreshHashes: OAuthGrantRecord.spentRefreshHashes(fromColumn: row.blob(20)))
    }
}
