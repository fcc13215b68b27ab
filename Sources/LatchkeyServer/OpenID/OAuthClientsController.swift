import Foundation
import LatchkeyService
import LatchkeyStore

/// `/admin/v1/oauth-clients`: the tenant's OpenID clients, behind the admin key. A confidential client's secret is
/// in the reply that made or rotated it, and never again.
struct OAuthClientsController: Sendable {
    let routes: ServiceRoutes

    private var clients: OpenIDClients { routes.service.openIDClients }

    func addRoutes(to group: RouteGroup) {
        group.post("oauth-clients", use: create)
        group.get("oauth-clients", use: list)
        group.get("oauth-clients/{clientID}", use: show)
        group.patch("oauth-clients/{clientID}", use: update)
        group.delete("oauth-clients/{clientID}", use: delete)
        group.post("oauth-clients/{clientID}/secret", use: rotateSecret)
    }

    @Sendable func create(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let issued = try await clients.create(try request.decode(as: NewOAuthClient.self), caller: routes.caller(request, context))
        return JSONResponse.make(OAuthClientReply(client: OAuthClientView(issued.client, secret: issued.secret)), status: .created)
    }

    @Sendable func list(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        JSONResponse.make(OAuthClientList(clients: try await clients.list().map { OAuthClientView($0) }))
    }

    @Sendable func show(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        JSONResponse.make(OAuthClientReply(client: OAuthClientView(try await clients.client(id: Self.clientID(context)))))
    }

    @Sendable func update(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let changes = try request.decode(as: OAuthClientChanges.self)
        let client = try await clients.update(id: Self.clientID(context), with: changes, caller: routes.caller(request, context))
        return JSONResponse.make(OAuthClientReply(client: OAuthClientView(client)))
    }

    @Sendable func delete(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        try await clients.delete(id: Self.clientID(context), caller: routes.caller(request, context))
        return JSONResponse.ok()
    }

    @Sendable func rotateSecret(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let issued = try await clients.rotateSecret(id: Self.clientID(context), caller: routes.caller(request, context))
        return JSONResponse.make(OAuthClientReply(client: OAuthClientView(issued.client, secret: issued.secret)))
    }

    private static func clientID(_ context: LatchkeyRequestContext) -> String { context.parameters.get("clientID") ?? "" }
}

/// A client as the admin API shows it.
struct OAuthClientView: Encodable, Sendable {
    let clientID: String
    let name: String
    let `public`: Bool
    /// Only in the reply that made or rotated it.
    let clientSecret: String?
    let redirectURIs: [String]
    let postLogoutRedirectURIs: [String]
    let scopes: [String]
    let consent: Bool
    let accessTokenLifetime: Int
    let refreshTokenLifetime: Int
    /// Empty: everyone may sign in to the client.
    let allowedGroups: [String]
    let deviceAuthorization: Bool
    let createdAt: String
    let updatedAt: String

    init(_ client: OAuthClientRecord, secret: String? = nil) {
        clientID = client.clientID
        name = client.name
        self.public = client.isPublic
        clientSecret = secret
        redirectURIs = client.redirectURIs
        postLogoutRedirectURIs = client.postLogoutRedirectURIs
        scopes = client.scopes
        consent = client.consent
        accessTokenLifetime = client.accessTokenLifetime
        refreshTokenLifetime = client.refreshTokenLifetime
        allowedGroups = client.allowedGroups
        deviceAuthorization = client.deviceAuthorization
        createdAt = RFC3339.string(client.createdAt)
        updatedAt = RFC3339.string(client.updatedAt)
    }
}

struct OAuthClientReply: ReplyBody {
    let client: OAuthClientView
}

struct OAuthClientList: ReplyBody {
    let clients: [OAuthClientView]
}
