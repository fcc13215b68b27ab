import Foundation
import LatchkeyStore
import WebAuthn

/// A client as the admin API shows it, with its secret only in the reply that made or rotated it.
package struct IssuedOAuthClient: Sendable {
    package let client: OAuthClientRecord
    /// `lk_secret_` and 32 random bytes in base64url; shown once, kept hashed.
    package let secret: String?
}

/// The admin use cases of the provider's clients: register, list, read, change, rotate the secret, remove. Removing a
/// client removes its grants in the same transaction, so every token it holds stops working at once.
package struct OpenIDClients: Sendable {
    let service: RelyingPartyService

    private static let secretPrefix = "lk_secret_"

    package func create(_ input: NewOAuthClient, caller: Caller, now: Date = Date()) async throws -> IssuedOAuthClient {
        let scopes = input.scopes ?? OAuthClientRules.defaultScopes
        let problems = [
            OAuthClientRules.nameProblem(input.name),
            OAuthClientRules.redirectProblem(input.redirectURIs, member: "redirectURIs", required: input.deviceAuthorization != true),
            OAuthClientRules.redirectProblem(input.postLogoutRedirectURIs ?? [], member: "postLogoutRedirectURIs", required: false),
            OAuthClientRules.scopesProblem(scopes),
            OAuthClientRules.lifetimeProblem(input.accessTokenLifetime, member: "accessTokenLifetime", within: OAuthClientRules.accessTokenLifetimes),
            OAuthClientRules.lifetimeProblem(input.refreshTokenLifetime, member: "refreshTokenLifetime", within: OAuthClientRules.refreshTokenLifetimes),
            input.allowedGroups.flatMap { GroupNames.problem($0, member: "allowedGroups") },
        ].compactMap { $0 }
        if let problem = problems.first { throw ServiceError.invalid(problem) }
        let secret = input.public == true ? nil : try Self.newSecret()
        let client = OAuthClientRecord(
            clientID: Base64URL.encode(try SecureRandom.bytes(count: 16)), name: input.name, secretHash: secret.map(Self.hash),
            redirectURIs: input.redirectURIs, postLogoutRedirectURIs: input.postLogoutRedirectURIs ?? [], scopes: scopes,
            consent: input.consent ?? false, accessTokenLifetime: input.accessTokenLifetime ?? OAuthClientRules.defaultAccessTokenLifetime,
            refreshTokenLifetime: input.refreshTokenLifetime ?? OAuthClientRules.defaultRefreshTokenLifetime, createdAt: now, updatedAt: now,
            allowedGroups: Set(input.allowedGroups ?? []).sorted(), deviceAuthorization: input.deviceAuthorization ?? false)
        try await service.store.saveOAuthClient(client, recording: [try event(.oauthClientCreated, client, caller, now: now)])
        caller.logger.notice("OpenID client registered", metadata: ["client": "\(client.clientID)", "public": "\(client.isPublic)"])
        return IssuedOAuthClient(client: client, secret: secret)
    }

    package func list() async throws -> [OAuthClientRecord] {
        try await service.store.oauthClients(limit: 1_000)
    }

    package func client(id: String) async throws -> OAuthClientRecord {
        guard let client = try await service.store.oauthClient(id: id) else { throw Self.noClient(id) }
        return client
    }

    package func update(id: String, with changes: OAuthClientChanges, caller: Caller, now: Date = Date()) async throws -> OAuthClientRecord {
        var client = try await client(id: id)
        let problems = [
            changes.name.flatMap(OAuthClientRules.nameProblem),
            changes.redirectURIs.flatMap { OAuthClientRules.redirectProblem($0, member: "redirectURIs", required: false) },
            changes.postLogoutRedirectURIs.flatMap { OAuthClientRules.redirectProblem($0, member: "postLogoutRedirectURIs", required: false) },
            changes.scopes.flatMap(OAuthClientRules.scopesProblem),
            OAuthClientRules.lifetimeProblem(changes.accessTokenLifetime, member: "accessTokenLifetime", within: OAuthClientRules.accessTokenLifetimes),
            OAuthClientRules.lifetimeProblem(changes.refreshTokenLifetime, member: "refreshTokenLifetime", within: OAuthClientRules.refreshTokenLifetimes),
            changes.allowedGroups.flatMap { GroupNames.problem($0, member: "allowedGroups") },
        ].compactMap { $0 }
        if let problem = problems.first { throw ServiceError.invalid(problem) }
        if let name = changes.name { client.name = name }
        if let uris = changes.redirectURIs { client.redirectURIs = uris }
        if let uris = changes.postLogoutRedirectURIs { client.postLogoutRedirectURIs = uris }
        if let scopes = changes.scopes { client.scopes = scopes }
        if let consent = changes.consent { client.consent = consent }
        if let seconds = changes.accessTokenLifetime { client.accessTokenLifetime = seconds }
        if let seconds = changes.refreshTokenLifetime { client.refreshTokenLifetime = seconds }
        if let groups = changes.allowedGroups { client.allowedGroups = Set(groups).sorted() }
        if let device = changes.deviceAuthorization { client.deviceAuthorization = device }
        guard !client.redirectURIs.isEmpty || client.deviceAuthorization else {
            throw ServiceError.invalid("redirectURIs must list at least one URI, unless deviceAuthorization is true")
        }
        client.updatedAt = now
        try await save(client, caller: caller, detail: "changed", now: now)
        return client
    }

    /// A new secret for a confidential client; the old one stops working at once.
    package func rotateSecret(id: String, caller: Caller, now: Date = Date()) async throws -> IssuedOAuthClient {
        var client = try await client(id: id)
        guard !client.isPublic else { throw ServiceError.invalid("client \(id) is public: it has no secret to rotate") }
        let secret = try Self.newSecret()
        client.secretHash = Self.hash(secret)
        client.updatedAt = now
        try await save(client, caller: caller, detail: "secret rotated", now: now)
        return IssuedOAuthClient(client: client, secret: secret)
    }

    package func delete(id: String, caller: Caller, now: Date = Date()) async throws {
        let client = try await client(id: id)
        guard try await service.store.deleteOAuthClient(id: id, recording: [try event(.oauthClientDeleted, client, caller, now: now)]) else {
            throw Self.noClient(id)
        }
        caller.logger.notice("OpenID client removed, with its grants", metadata: ["client": "\(id)"])
    }

    /// Whether `secret` is `client`'s, compared by hash in constant time.
    package static func secret(_ secret: String, isOf client: OAuthClientRecord) -> Bool {
        guard let stored = client.secretHash else { return false }
        return constantTimeEquals(hash(secret), stored)
    }

    private func save(_ client: OAuthClientRecord, caller: Caller, detail: String, now: Date) async throws {
        guard try await service.store.updateOAuthClient(
            client, recording: [try event(.oauthClientUpdated, client, caller, detail: detail, now: now)])
        else { throw Self.noClient(client.clientID) }
    }

    private func event(
        _ type: SecurityEventType, _ client: OAuthClientRecord, _ caller: Caller, detail: String? = nil, now: Date
    ) throws -> SecurityEvent {
        try service.events.event(
            type, caller.origin, user: nil, detail: "client \(client.clientID) (\(client.name))" + (detail.map { ": " + $0 } ?? ""), at: now)
    }

    private static func newSecret() throws -> String { secretPrefix + Base64URL.encode(try SecureRandom.bytes(count: 32)) }

    private static func hash(_ secret: String) -> [UInt8] { Digest.sha256(Array(secret.utf8)) }

    private static func noClient(_ id: String) -> ServiceError {
        ServiceError(.notFound, "there is no OpenID client \(id.prefix(64).debugDescription)")
    }
}
