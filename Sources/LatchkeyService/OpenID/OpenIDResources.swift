import Foundation
import LatchkeyStore
import WebAuthn

/// What userinfo answers: the subject and the claims the grant's scopes release.
package struct UserInfo: Sendable {
    package let subject: String
    package let profile: OpenIDProfileClaims
}

/// What introspection says of a token (RFC 7662 §2.2); `active` false says nothing more.
package struct TokenIntrospection: Sendable {
    package struct Active: Sendable {
        package let scopes: [String]
        package let clientID: String
        package let username: String
        package let subject: String
        package let tokenType: String
        package let issuedAt: Date
        package let expiresAt: Date
    }

    package let active: Active?
}

extension OpenIDProvider {
    /// The live grant an access token is the current one of, with its user and client; nil for anything else.
    private func liveAccess(_ text: String, now: Date) async throws -> OAuthGrantLookup? {
        guard let token = ProviderToken(text), let found = try await lookup(token), token.matches(found.grant.accessHash),
              found.grant.revokedAt == nil, let expires = found.grant.accessExpiresAt, expires > now, !found.user.disabled
        else { return nil }
        return found
    }

    /// Userinfo (OpenID Connect Core §5.3) for the bearer of `accessToken`.
    package func userInfo(accessToken: String?, now: Date = Date()) async throws -> UserInfo {
        guard let accessToken else { throw OAuthError(.invalidToken, "send the access token: Authorization: Bearer TOKEN") }
        guard let found = try await liveAccess(accessToken, now: now) else {
            throw OAuthError(.invalidToken, "the access token is not live: expired, revoked, or not this issuer's")
        }
        guard found.grant.scopes.contains("openid") else { throw OAuthError(.insufficientScope, "the token's grant has no openid scope") }
        return UserInfo(subject: Base64URL.encode(found.user.handle), profile: try await profile(of: found))
    }

    /// Revocation (RFC 7009): a client's access or refresh token revokes its grant, every token of it. A token that is
    /// not live, or not the client's, changes nothing and is answered the same way.
    package func revoke(_ form: [String: String], credentials: ClientCredentials, origin: EventOrigin, now: Date = Date()) async throws {
        let client = try await authenticate(credentials)
        guard let text = form["token"] else { throw OAuthError(.invalidRequest, "token is missing") }
        guard let token = ProviderToken(text), let found = try await lookup(token), found.client.clientID == client.clientID,
              token.matches(found.grant.accessHash) || token.matches(found.grant.refreshHash)
        else { return }
        _ = try await service.store.revokeOAuthGrant(
            id: found.grant.id, now: now, recording: [try event(.oauthTokenRevoked, user: found.user, client: client, origin: origin, now: now)])
    }

    /// Introspection (RFC 7662), for confidential clients (resource servers): whether a token is live, and what it is.
    package func introspect(_ form: [String: String], credentials: ClientCredentials, now: Date = Date()) async throws -> TokenIntrospection {
        let client = try await authenticate(credentials)
        guard !client.isPublic else { throw OAuthError(.unauthorizedClient, "introspection is for confidential clients (resource servers)") }
        guard let text = form["token"] else { throw OAuthError(.invalidRequest, "token is missing") }
        guard let token = ProviderToken(text), let found = try await lookup(token), found.grant.revokedAt == nil, !found.user.disabled else {
            return TokenIntrospection(active: nil)
        }
        let grant = found.grant
        let kind: (type: String, expires: Date?)
        if token.matches(grant.accessHash) {
            kind = ("Bearer", grant.accessExpiresAt)
        } else if token.matches(grant.refreshHash) {
            kind = ("refresh_token", grant.refreshExpiresAt)
        } else {
            return TokenIntrospection(active: nil)
        }
        guard let expires = kind.expires, expires > now else { return TokenIntrospection(active: nil) }
        return TokenIntrospection(active: .init(
            scopes: grant.scopes, clientID: grant.clientID, username: found.user.username, subject: Base64URL.encode(found.user.handle),
            tokenType: kind.type, issuedAt: grant.codeUsedAt ?? grant.createdAt, expiresAt: expires))
    }
}
