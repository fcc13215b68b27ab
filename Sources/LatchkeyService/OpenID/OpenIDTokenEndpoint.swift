import Foundation
import LatchkeyStore
import WebAuthn

/// What the token endpoint answers (RFC 6749 §5.1, OpenID Connect Core §3.1.3.3).
package struct IssuedTokens: Sendable {
    package let accessToken: String
    package let expiresIn: Int
    package let refreshToken: String?
    /// On a code's exchange; a refresh answers without one (OpenID Connect Core §12.2), so it signs nothing.
    package let idToken: String?
    package let scopes: [String]
}

extension OpenIDProvider {
    /// The token endpoint: a code exchanged (`authorization_code`), a refresh token rotated (`refresh_token`) or a
    /// device's poll (RFC 8628's `device_code`), for the client `credentials` prove.
    package func token(_ form: [String: String], credentials: ClientCredentials, origin: EventOrigin, now: Date = Date()) async throws
        -> IssuedTokens
    {
        guard let grantType = form["grant_type"] else { throw OAuthError(.invalidRequest, "grant_type is missing") }
        switch grantType {
        case "authorization_code":
            return try await exchange(form, client: try await authenticate(credentials), origin: origin, now: now)
        case Self.deviceCodeGrantType:
            let client = try await authenticate(credentials)
            guard client.deviceAuthorization else {
                throw OAuthError(.unauthorizedClient, "client \(client.clientID) may not use the device authorization grant")
            }
            return try await pollDevice(form, client: client, origin: origin, now: now)
        case "refresh_token":
            break
        default:
            throw OAuthError(
                .unsupportedGrantType,
                "grant_type is authorization_code, refresh_token or \(Self.deviceCodeGrantType), not \(grantType.prefix(60).debugDescription)")
        }
        // The refresh token's grant is read with its client, which then authenticates the caller without a second read.
        guard let text = form["refresh_token"] else {
            _ = try await authenticate(credentials)
            throw OAuthError(.invalidRequest, "refresh_token is missing")
        }
        let token = ProviderToken(text)
        let found = try await token.asyncMap(lookup)
        let client = try await authenticate(credentials, known: found?.client)
        guard let token, let found, found.client.clientID == client.clientID else {
            throw OAuthError(.invalidGrant, "this refresh token is not one this issuer gave client \(client.clientID)")
        }
        return try await refresh(token, found, form, client: client, origin: origin, now: now)
    }

    /// A code for tokens (RFC 6749 §4.1.3, RFC 7636 §4.6). A code presented a second time revokes what its first use
    /// issued (RFC 6749 §4.1.2).
    private func exchange(_ form: [String: String], client: OAuthClientRecord, origin: EventOrigin, now: Date) async throws -> IssuedTokens {
        guard let text = form["code"] else { throw OAuthError(.invalidRequest, "code is missing") }
        guard let code = ProviderToken(text), let found = try await lookup(code), found.client.clientID == client.clientID,
              code.matches(found.grant.codeHash)
        else { throw OAuthError(.invalidGrant, "this code is not one this issuer gave client \(client.clientID)") }
        return try await redeem(found, now: now, origin: origin, what: "code") { grant in
            guard form["redirect_uri"] == grant.redirectURI else {
                throw OAuthError(.invalidGrant, "redirect_uri is not the one the code was sent to")
            }
            switch (grant.codeChallenge, form["code_verifier"]) {
            case (let challenge?, let verifier?):
                guard PKCE.verifies(verifier, challenge: challenge) else {
                    throw OAuthError(.invalidGrant, "code_verifier does not match the code_challenge")
                }
            case (.some, nil):
                throw OAuthError(.invalidGrant, "code_verifier is missing: the authorization request sent a code_challenge")
            case (nil, .some):
                throw OAuthError(.invalidGrant, "code_verifier was sent, but the authorization request sent no code_challenge")
            case (nil, nil):
                break
            }
        }
    }

    /// A grant's code (an authorization's, or an approved device's device code) for its first tokens, once: presented a
    /// second time, it revokes what its first use issued. `check` is what the code's kind checks besides.
    func redeem(
        _ found: OAuthGrantLookup, now: Date, origin: EventOrigin, what: String, check: (OAuthGrantRecord) throws -> Void
    ) async throws -> IssuedTokens {
        var grant = found.grant
        guard grant.revokedAt == nil else { throw OAuthError(.invalidGrant, "this \(what)'s grant was revoked") }
        guard grant.codeUsedAt == nil else {
            try await revokeReused(grant, found, origin: origin, what: "a \(what) used a second time", now: now)
            throw OAuthError(.invalidGrant, "this \(what) was used already; the tokens it gave are revoked")
        }
        guard grant.codeExpiresAt > now else { throw OAuthError(.invalidGrant, "this \(what) expired") }
        try check(grant)
        guard !found.user.disabled else { throw OAuthError(.invalidGrant, "the account of this grant is disabled") }
        grant.codeUsedAt = now
        let tokens = try await issue(for: &grant, found, refreshing: false, now: now)
        try await save(grant, found, .oauthTokenIssued, origin: origin, raced: "a \(what) used twice at once", now: now)
        return tokens
    }

    /// A refresh token for new tokens, the refresh token rotated (RFC 9700 §4.14.2). A rotated-out refresh token
    /// presented again revokes the grant: whoever holds either copy loses it.
    private func refresh(
        _ token: ProviderToken, _ found: OAuthGrantLookup, _ form: [String: String], client: OAuthClientRecord, origin: EventOrigin, now: Date
    ) async throws -> IssuedTokens {
        var grant = found.grant
        guard grant.revokedAt == nil else { throw OAuthError(.invalidGrant, "this refresh token's grant was revoked") }
        guard token.matches(grant.refreshHash) else {
            // A rotated-out refresh token: whoever holds either copy loses the grant. Any other token naming the grant
            // is refused and changes nothing (it proves nothing: the grant's ID is in every token of it).
            guard grant.spentRefreshHashes.contains(where: token.matches) else {
                throw OAuthError(.invalidGrant, "this is not a refresh token this issuer gave")
            }
            try await revokeReused(grant, found, origin: origin, what: "a refresh token used after it was rotated", now: now)
            throw OAuthError(.invalidGrant, "this refresh token was used already; the grant is revoked")
        }
        guard let expires = grant.refreshExpiresAt, expires > now else { throw OAuthError(.invalidGrant, "this refresh token expired") }
        guard !found.user.disabled else {
            _ = try await service.store.revokeOAuthGrant(id: grant.id, now: now, recording: [])
            throw OAuthError(.invalidGrant, "the account of this grant is disabled")
        }
        if let asked = form["scope"] {
            let scopes = asked.split(separator: " ").map(String.init)
            guard Set(scopes).isSubset(of: Set(grant.scopes)) else {
                throw OAuthError(.invalidScope, "a refresh cannot add scopes to the grant's: \(grant.scopes.joined(separator: " "))")
            }
        }
        let tokens = try await issue(for: &grant, found, refreshing: true, now: now)
        try await save(grant, found, .oauthTokenRefreshed, origin: origin, raced: "a refresh token used twice at once", now: now)
        return tokens
    }

    /// Writes `grant`, with its `type` event, over the revision `found` read. When another use wrote first (the same code
    /// or refresh token presented twice at once), this one is the second use: the grant is revoked, as for reuse.
    private func save(
        _ grant: OAuthGrantRecord, _ found: OAuthGrantLookup, _ type: SecurityEventType, origin: EventOrigin, raced: String, now: Date
    ) async throws {
        let written = try await service.store.replaceOAuthGrant(
            grant, recording: [try event(type, user: found.user, client: found.client, origin: origin, now: now)])
        guard !written else { return }
        try await revokeReused(found.grant, found, origin: origin, what: raced, now: now)
        throw OAuthError(.invalidGrant, "this \(type == .oauthTokenIssued ? "code" : "refresh token") was used already; the grant is revoked")
    }

    /// New tokens for `grant`, their hashes written into it: an access token, a refresh token when the grant has
    /// `offline_access`, and (not refreshing) an ID token.
    private func issue(for grant: inout OAuthGrantRecord, _ found: OAuthGrantLookup, refreshing: Bool, now: Date) async throws -> IssuedTokens {
        let client = found.client
        let access = try ProviderToken(grantID: grant.id)
        let accessExpires = now.addingTimeInterval(TimeInterval(client.accessTokenLifetime))
        grant.accessHash = access.hash
        grant.accessExpiresAt = accessExpires
        var refresh: ProviderToken?
        if refreshing { grant.spendRefreshToken() }
        if grant.scopes.contains("offline_access") {
            refresh = try ProviderToken(grantID: grant.id)
            grant.refreshHash = refresh?.hash
            grant.refreshExpiresAt = now.addingTimeInterval(TimeInterval(client.refreshTokenLifetime))
        }
        grant.expiresAt = max(accessExpires, grant.refreshExpiresAt ?? accessExpires)
        guard !refreshing else {
            return IssuedTokens(
                accessToken: access.text, expiresIn: client.accessTokenLifetime, refreshToken: refresh?.text, idToken: nil, scopes: grant.scopes)
        }
        let claims = OpenIDTokenClaims(
            issuer: issuer, subject: Base64URL.encode(found.user.handle), clientID: client.clientID, issuedAt: now,
            expiresAt: now.addingTimeInterval(service.tokens.lifetime), authTime: grant.authTime,
            nonce: grant.nonce, methods: grant.methods, contextClass: OpenIDTokenClaims.contextClass(of: grant.methods),
            accessTokenHash: Base64URL.encode(Array(Digest.sha256(Array(access.text.utf8)).prefix(16))),
            profile: try await profile(of: found))
        return IssuedTokens(
            accessToken: access.text, expiresIn: client.accessTokenLifetime, refreshToken: refresh?.text,
            idToken: try await service.tokens.sign(claims, now: now), scopes: grant.scopes)
    }

    /// Revokes a grant one of whose spent tokens came back, recording it as a security event.
    private func revokeReused(_ grant: OAuthGrantRecord, _ found: OAuthGrantLookup, origin: EventOrigin, what: String, now: Date) async throws {
        _ = try await service.store.revokeOAuthGrant(
            id: grant.id, now: now,
            recording: [try event(.oauthTokenReused, user: found.user, client: found.client, origin: origin, detail: what, now: now)])
    }
}
