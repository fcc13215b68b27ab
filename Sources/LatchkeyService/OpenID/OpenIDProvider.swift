import Foundation
import LatchkeyStore
import WebAuthn

/// A tenant's OpenID provider (OpenID Connect Core 1.0 on OAuth 2.0, held to RFC 9700): the authorization code flow
/// with PKCE, refresh tokens that rotate, userinfo, revocation, introspection and RP-initiated logout. The issuer
/// is the tenant's `tokenIssuer`; sessions are the tenant's own, so a person signed in to Latchkey is signed in to
/// every client of its tenant. Codes, access tokens and refresh tokens are opaque (``ProviderToken``) and live in
/// their grant, so revoking a grant, removing its client or disabling its user ends them at once; ID tokens are
/// ES256 JWTs signed with the tenant's token key.
package struct OpenIDProvider: Sendable {
    let service: RelyingPartyService

    /// How long a code may wait for its exchange.
    package static let codeLifetime: TimeInterval = 60

    package init(service: RelyingPartyService) {
        self.service = service
    }

    /// The issuer identifier: the tenant's `tokenIssuer`, without a trailing slash.
    package var issuer: String {
        var issuer = service.configuration.tokenIssuer
        while issuer.hasSuffix("/") { issuer.removeLast() }
        return issuer
    }

    /// How a client proved itself at a back-channel endpoint: HTTP Basic (`client_secret_basic`), the form's
    /// `client_id` and `client_secret` (`client_secret_post`), or the form's `client_id` alone (a public client).
    package struct ClientCredentials: Sendable {
        package var clientID: String?
        package var secret: String?

        package init(clientID: String?, secret: String?) {
            (self.clientID, self.secret) = (clientID, secret)
        }
    }

    /// The client `credentials` prove: a confidential client with its secret, a public one with its ID alone.
    /// `known` is the client when the caller has read it already (with a grant): it is not read again.
    package func authenticate(_ credentials: ClientCredentials, known: OAuthClientRecord? = nil) async throws -> OAuthClientRecord {
        guard let id = credentials.clientID, !id.isEmpty else {
            throw OAuthError(.invalidClient, "the client is not identified: send client_id, or authenticate with HTTP Basic")
        }
        let read = known?.clientID == id ? known : try await service.store.oauthClient(id: id)
        guard let client = read else {
            throw OAuthError(.invalidClient, "there is no client \(id.prefix(64).debugDescription) at this issuer")
        }
        if client.isPublic {
            guard credentials.secret == nil else {
                throw OAuthError(.invalidClient, "client \(id) is public: it has no secret, and proves itself with PKCE")
            }
        } else {
            guard let secret = credentials.secret else {
                throw OAuthError(.invalidClient, "client \(id) is confidential: authenticate with its secret (client_secret_basic or client_secret_post)")
            }
            guard OpenIDClients.secret(secret, isOf: client) else {
                throw OAuthError(.invalidClient, "the secret of client \(id) is not right")
            }
        }
        return client
    }

    /// The grant a token names, with its user and client; nil when the token cannot be ours or its grant is gone.
    func lookup(_ token: ProviderToken) async throws -> OAuthGrantLookup? {
        try await service.store.oauthGrant(id: token.grantID)
    }

    /// What `found`'s scopes release about its user, as the ID token and userinfo carry it (the groups read now, so a
    /// change shows at the next refresh and userinfo).
    func profile(of found: OAuthGrantLookup) async throws -> OpenIDProfileClaims {
        let scopes = found.grant.scopes
        var claims = OpenIDProfileClaims()
        if scopes.contains("profile") { (claims.preferredUsername, claims.name) = (found.user.username, found.user.displayName) }
        if let contact = found.contact {
            switch contact.kind {
            case .email where scopes.contains("email"): claims.email = contact.value
            case .phone where scopes.contains("phone"): claims.phoneNumber = contact.value
            default: break
            }
        }
        if scopes.contains("groups") { claims.groups = try await service.store.groups(ofUser: found.user.handle) }
        return claims
    }

    /// An event of `type` about `user`'s grant with `client`.
    func event(_ type: SecurityEventType, user: UserRecord, client: OAuthClientRecord, origin: EventOrigin, detail: String? = nil, now: Date)
        throws -> SecurityEvent
    {
        try service.events.event(
            type, origin, user: user, detail: "client \(client.clientID) (\(client.name))" + (detail.map { ": " + $0 } ?? ""), at: now)
    }
}

extension RelyingPartyService {
    /// The tenant's OpenID provider.
    package var openID: OpenIDProvider { OpenIDProvider(service: self) }
    /// The admin use cases of the provider's clients.
    package var openIDClients: OpenIDClients { OpenIDClients(service: self) }
}
