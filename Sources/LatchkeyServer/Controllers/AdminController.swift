import Foundation
import LatchkeyService
import LatchkeyStore
import WebAuthn

/// The admin API under `/admin/v1` (``UserAdministration``): a backend creates users for its accounts, issues
/// enrollment tickets, reads and removes passkeys, ends sessions and deletes users. Every route runs behind
/// ``AdminKeyAuthenticator``; a user's session never reaches it.
struct AdminController: Sendable {
    let routes: ServiceRoutes

    private var users: UserAdministration { routes.service.users }

    func addRoutes(to group: RouteGroup) {
        group.post("users", use: createUser)
        group.get("users", use: findOrListUsers)
        group.get("users/{username}", use: showUser)
        group.patch("users/{username}", use: updateUser)
        group.delete("users/{username}", use: deleteUser)
        group.get("users/{username}/credentials", use: listCredentials)
        group.delete("users/{username}/credentials/{id}", use: deleteCredential)
        group.delete("users/{username}/device-keys/{keyId}", use: deleteDeviceKey)
        group.get("users/{username}/sessions", use: listSessions)
        group.delete("users/{username}/sessions", use: endSessions)
        group.post("users/{username}/enrollment-tickets", use: issueTicket)
        group.delete("users/{username}/enrollment-tickets", use: revokeTickets)
        group.put("users/{username}/groups", use: setGroups)
        group.put("users/{username}/contact", use: setContact)
    }

    @Sendable func createUser(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let body = try request.decode(as: CreateUserRequest.self)
        let user = try await users.create(body, caller: routes.caller(request, context))
        return JSONResponse.make(AdminUserReply(user: AdminUser(user, credentials: [], deviceKeys: [])), status: .created)
    }

    /// `GET /admin/v1/users?externalId=...`: the user a backend knows by its own identifier. Without one,
    /// every user, a page at a time in the order of their usernames: `limit=1...200` (50), `cursor=`.
    @Sendable func findOrListUsers(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let parameters = request.uri.queryParameters
        let page = try Self.userPage(parameters)
        if let externalId = parameters.get("externalId") {
            return try await userReply(try await users.user(externalId: externalId))
        }
        let listed = try await users.users(after: page.after, limit: page.limit)
        return JSONResponse.make(AdminUserPage(
            users: listed.map(AdminUser.init),
            nextCursor: listed.count == page.limit ? listed.last.map { Base64URL.encode(Array($0.user.username.utf8)) } : nil))
    }

    /// `limit` and `cursor`, checked whether or not they are used.
    private static func userPage(_ parameters: Parameters) throws -> (after: String?, limit: Int) {
        let limit = try PageLimit.parse(parameters, default: 50)
        var after: String?
        if let text = parameters.get("cursor"), !text.isEmpty {
            // A position among the usernames: any base64url names one.
            guard let bytes = Base64URL.decode(text) else {
                throw APIError.badRequest("cursor is not one this server gave (use nextCursor from the previous page)")
            }
            after = String(decoding: bytes, as: UTF8.self)
        }
        return (after, limit)
    }

    @Sendable func showUser(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        try await userReply(try await namedUser(context))
    }

    @Sendable func updateUser(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let user = try await namedUser(context)
        let body = try request.decode(as: UpdateUserRequest.self)
        return try await userReply(try await users.update(user, with: body, caller: routes.caller(request, context)))
    }

    /// `PUT /admin/v1/users/{username}/groups` with `{"groups": [...]}`: the user's groups, all at once.
    @Sendable func setGroups(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let user = try await namedUser(context)
        _ = try await users.setGroups(try request.decode(as: UserGroupsRequest.self).groups, of: user, caller: routes.caller(request, context))
        return try await userReply(user)
    }

    /// `PUT /admin/v1/users/{username}/contact` with `{"contact": "..." | null}`: the user's contact, replaced or removed.
    @Sendable func setContact(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let user = try await namedUser(context)
        _ = try await users.setContact(try request.decode(as: UserContactRequest.self).contact, of: user, caller: routes.caller(request, context))
        return try await userReply(user)
    }

    @Sendable func deleteUser(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        try await users.delete(try await namedUser(context), caller: routes.caller(request, context))
        return JSONResponse.ok()
    }

    @Sendable func listCredentials(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let user = try await namedUser(context)
        let (passkeys, deviceKeys) = try await users.keys(of: user)
        return JSONResponse.make(AdminCredentialListReply(
            username: user.username, credentials: passkeys.map { CredentialSummary($0, names: routes.service.names) },
            deviceKeys: deviceKeys.map(DeviceKeySummary.init)))
    }

    @Sendable func deleteCredential(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let user = try await namedUser(context)
        try await users.removePasskey(ServiceRoutes.id("id", in: context), of: user, caller: routes.caller(request, context))
        return JSONResponse.ok()
    }

    @Sendable func deleteDeviceKey(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let user = try await namedUser(context)
        try await users.removeDeviceKey(ServiceRoutes.id("keyId", in: context), of: user, caller: routes.caller(request, context))
        return JSONResponse.ok()
    }

    /// The user's live sessions, newest first (the 100 newest): when each began and ends, and whether a device key
    /// signed it in; never a token.
    @Sendable func listSessions(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let sessions = try await users.sessions(of: try await namedUser(context))
        return JSONResponse.make(SessionListReply(sessions: sessions.map(SessionSummary.init)))
    }

    @Sendable func endSessions(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let ended = try await users.endSessions(of: try await namedUser(context), caller: routes.caller(request, context))
        return JSONResponse.make(EndedSessionsReply(ended: ended))
    }

    @Sendable func issueTicket(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let user = try await namedUser(context)
        // No body, or an empty one whatever its type, asks for the default lifetime.
        let hasNoBody = request.body.readableBytes == 0
        let body = hasNoBody ? EnrollmentTicketRequest() : try request.decode(as: EnrollmentTicketRequest.self)
        let issued = try await users.issueTicket(for: user, expiresIn: body.expiresIn, caller: routes.caller(request, context))
        return JSONResponse.make(
            EnrollmentTicketReply(ticket: issued.ticket, expiresAt: RFC3339.string(issued.expiresAt), enrollmentURL: issued.enrollmentURL),
            status: .created)
    }

    @Sendable func revokeTickets(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let revoked = try await users.revokeTickets(of: try await namedUser(context), caller: routes.caller(request, context))
        return JSONResponse.make(RevokedTicketsReply(revoked: revoked))
    }

    private func userReply(_ user: UserRecord) async throws -> Response {
        let (passkeys, deviceKeys) = try await users.keys(of: user)
        var shown = AdminUser(user, credentials: passkeys, deviceKeys: deviceKeys)
        shown.contact = try await users.contact(of: user)
        shown.groups = try await users.groups(of: user)
        return JSONResponse.make(AdminUserReply(user: shown))
    }

    /// The user the `{username}` path segment names, percent-decoded.
    private func namedUser(_ context: LatchkeyRequestContext) async throws -> UserRecord {
        guard let segment = context.parameters.get("username") else { throw APIError(.notFound, "no such user") }
        guard let decoded = segment.removingPercentEncoding else {
            throw APIError.badRequest("the username in the path is not percent-encoded UTF-8")
        }
        return try await users.user(named: decoded)
    }
}
