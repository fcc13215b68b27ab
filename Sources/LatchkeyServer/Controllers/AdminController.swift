import Foundation
import Hummingbird
import LatchkeyService
import LatchkeyStore
import Logging
import WebAuthn

/// The admin API under `/admin/v1`: a backend creates users for its accounts, issues enrollment
/// tickets, reads and removes passkeys, ends sessions and deletes users. Every route runs behind
/// ``AdminKeyAuthenticator``; a user's session never reaches it.
struct AdminController: Sendable {
    let services: LatchkeyServices
    let names: AuthenticatorNames

    func addRoutes(to group: RouterGroup<LatchkeyRequestContext>) {
        group.post("users", use: createUser)
        group.get("users", use: findOrListUsers)
        group.get("users/{username}", use: showUser)
        group.patch("users/{username}", use: updateUser)
        group.delete("users/{username}", use: deleteUser)
        group.get("users/{username}/credentials", use: listCredentials)
        group.delete("users/{username}/credentials/{id}", use: deleteCredential)
        group.delete("users/{username}/device-keys/{keyId}", use: deleteDeviceKey)
        group.delete("users/{username}/sessions", use: endSessions)
        group.post("users/{username}/enrollment-tickets", use: issueTicket)
        group.delete("users/{username}/enrollment-tickets", use: revokeTickets)
    }

    /// The most an external ID may be, in UTF-8 bytes.
    static let maximumExternalIDBytes = 255

    @Sendable func createUser(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let body = try await request.decode(as: CreateUserRequest.self, context: context)
        let spelling = try UserNames.spelling(body.username)
        let username = try UserNames.folded(spelling)
        let displayName = try body.displayName.flatMap { $0.isEmpty ? nil : $0 }.map { try UserNames.displayName($0) } ?? spelling
        let externalId = try body.externalId.map(Self.checkedExternalID)
        let user = UserRecord(
            handle: try SecureRandom.bytes(count: 64), username: username, displayName: displayName, createdAt: Date(),
            externalId: externalId)
        try await services.store.createUser(user, recording: [services.events.event(.userCreated, context.eventOrigin(request), user: user)])
        context.logger.notice("user created by the admin API", metadata: ["user": .quoted(username)])
        return JSONResponse.make(AdminUserReply(user: AdminUser(user, credentials: [], deviceKeys: [])), status: .created)
    }

    /// `GET /admin/v1/users?externalId=...`: the user a backend knows by its own identifier. Without one,
    /// every user, a page at a time in the order of their usernames: `limit=1...200` (50), `cursor=`.
    @Sendable func findOrListUsers(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let parameters = request.uri.queryParameters
        let page = try Self.userPage(parameters)
        guard let externalId = parameters.get("externalId") else { return try await listUsers(page) }
        guard !externalId.isEmpty else { throw APIError.badRequest("externalId is empty; leave it out to list every user") }
        guard let user = try await services.store.user(externalId: externalId) else {
            throw APIError(.notFound, "no user has externalId \"\(externalId)\"")
        }
        return try await userReply(user)
    }

    private func listUsers(_ page: (after: String?, limit: Int)) async throws -> Response {
        let users = try await services.store.users(after: page.after, limit: page.limit)
        return JSONResponse.make(AdminUserPage(
            users: users.map(AdminUser.init),
            nextCursor: users.count == page.limit ? users.last.map { Base64URL.encode(Array($0.user.username.utf8)) } : nil))
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

    /// Changes what the backend may change of a user: username, display name, external ID, and whether the
    /// account is disabled (which ends its sessions). The handle, so every passkey and token subject, stays.
    @Sendable func updateUser(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let user = try await namedUser(context)
        let body = try await request.decode(as: UpdateUserRequest.self, context: context)
        guard body.username != nil || body.displayName != nil || body.externalId != nil || body.disabled != nil else {
            throw APIError.badRequest("name what to change: username, displayName, externalId or disabled")
        }
        var updated = user
        let spelling = try body.username.map(UserNames.spelling)
        if let spelling { updated.username = try UserNames.folded(spelling) }
        if let displayName = body.displayName {
            updated.displayName = displayName.isEmpty ? spelling ?? updated.username : try UserNames.displayName(displayName)
        } else if let spelling, user.displayName.lowercased() == user.username {
            // A display name that was the username (the default) follows it.
            updated.displayName = spelling
        }
        if let externalId = body.externalId { updated.externalId = try externalId.map(Self.checkedExternalID) }
        if let disabled = body.disabled { updated.disabled = disabled }
        let renamed = [
            updated.username == user.username ? nil : "username (was \"\(user.username)\")",
            updated.displayName == user.displayName ? nil : "displayName",
            Self.sameBytes(updated.externalId, user.externalId) ? nil : "externalId",
        ].compactMap { $0 }
        let changes = (renamed.isEmpty ? [] : ["changed " + renamed.joined(separator: ", ")])
            + (updated.disabled == user.disabled ? [] : [updated.disabled ? "disabled the account" : "enabled the account"])
        if !changes.isEmpty {
            let event = try services.events.event(
                .userUpdated, context.eventOrigin(request), user: updated, detail: changes.joined(separator: "; "))
            guard try await services.store.updateUser(updated, from: user, recording: [event]) else {
                // Removed, or changed by another request since it was read: nothing was written.
                guard try await services.store.user(handle: user.handle) != nil else { throw Self.noUser(user.username) }
                throw APIError(.conflict, "user \(user.username.debugDescription) was changed by another request at the same time; read it again and resend the change")
            }
            context.logger.notice("user updated by the admin API", metadata: [
                "user": .quoted(updated.username), "changed": "\(changes.joined(separator: "; "))",
            ])
        }
        // A disabled account's sessions already count as none; ending them keeps them from coming back with it.
        // Done also when it was disabled already (a retry after a failed ending), and when it is enabled again:
        // a sign-in verified while the account was being disabled may have left a session since.
        if let disabled = body.disabled, disabled || user.disabled {
            // Disabling ends the sessions as the admin route that ends them does, and is recorded the same way.
            let ending = disabled
                ? [try services.events.event(.sessionEnded, context.eventOrigin(request), user: updated, detail: "every session ended: the account was disabled")]
                : []
            _ = try await services.store.deleteSessions(ofUser: user.handle, recording: ending)
        }
        return try await userReply(updated)
    }

    /// Whether two external IDs are one, compared as bytes as the store keeps and finds them (not as Swift
    /// compares strings): `é` and `e` with a combining accent are two IDs to a backend.
    private static func sameBytes(_ first: String?, _ second: String?) -> Bool {
        switch (first, second) {
        case (nil, nil): true
        case let (first?, second?): first.utf8.elementsEqual(second.utf8)
        default: false
        }
    }

    @Sendable func deleteUser(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let user = try await namedUser(context)
        let event = try services.events.event(.accountDeleted, context.eventOrigin(request), user: user)
        guard let removed = try await services.store.deleteUser(handle: user.handle, recording: [event]) else {
            throw Self.noUser(user.username)
        }
        for id in removed {
            services.authenticationVerifier.keyCache?.invalidate(credentialID: id)
        }
        context.logger.notice("user deleted by the admin API", metadata: [
            "user": .quoted(user.username), "passkeys": "\(removed.count)",
        ])
        return JSONResponse.ok()
    }

    @Sendable func listCredentials(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let user = try await namedUser(context)
        let credentials = try await services.store.credentials(ofUser: user.handle)
        let deviceKeys = try await services.store.deviceKeys(ofUser: user.handle)
        return JSONResponse.make(AdminCredentialListReply(
            username: user.username, credentials: credentials.map { CredentialSummary($0, names: names) },
            deviceKeys: deviceKeys.map(DeviceKeySummary.init)))
    }

    /// Removes any passkey of the user, the last one included: the backend knows how the person
    /// gets back in (a ticket, say).
    @Sendable func deleteCredential(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let user = try await namedUser(context)
        let origin = context.eventOrigin(request)
        guard let text = context.parameters.get("id"), let id = Base64URL.decode(text), !id.isEmpty,
              let credential = try await services.store.credential(id: id), credential.userHandle == user.handle,
              try await services.store.deleteCredentialEvenIfLast(
                  id: id, ownedBy: user.handle, recording: [services.events.event(.passkeyRemoved, origin, user: user, credential: credential)])
        else {
            throw APIError(.notFound, "user \"\(user.username)\" has no passkey with this id")
        }
        services.authenticationVerifier.keyCache?.invalidate(credentialID: id)
        context.logger.notice("passkey removed by the admin API", metadata: [
            "user": .quoted(user.username), "credential": "\(LatchkeyServices.logID(id))",
        ])
        return JSONResponse.ok()
    }

    /// Removes a device key of the user, such as one on a phone they lost.
    @Sendable func deleteDeviceKey(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let user = try await namedUser(context)
        let origin = context.eventOrigin(request)
        guard let text = context.parameters.get("keyId"), let id = Base64URL.decode(text), !id.isEmpty,
              try await services.store.deleteDeviceKey(
                  id: id, ownedBy: user.handle, recording: [services.events.event(.deviceKeyRemoved, origin, user: user, credentialID: id)])
        else {
            throw APIError(.notFound, "user \"\(user.username)\" has no device key with this id")
        }
        context.logger.notice("device key removed by the admin API", metadata: [
            "user": .quoted(user.username), "deviceKey": "\(LatchkeyServices.logID(id))",
        ])
        return JSONResponse.ok()
    }

    @Sendable func endSessions(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let user = try await namedUser(context)
        let event = try services.events.event(.sessionEnded, context.eventOrigin(request), user: user, detail: "every session ended by an admin")
        let ended = try await services.store.deleteSessions(ofUser: user.handle, recording: [event])
        context.logger.notice("sessions ended by the admin API", metadata: [
            "user": .quoted(user.username), "sessions": "\(ended)",
        ])
        return JSONResponse.make(EndedSessionsReply(ended: ended))
    }

    @Sendable func issueTicket(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let user = try await namedUser(context)
        // No body, or an empty one whatever its type, asks for the default lifetime.
        let hasNoBody = (request.headers[.contentLength] ?? "0") == "0" && request.headers[.transferEncoding] == nil
        let body = hasNoBody ? EnrollmentTicketRequest() : try await request.decode(as: EnrollmentTicketRequest.self, context: context)
        // It could never be used: a disabled account adds no key.
        guard !user.disabled else {
            throw APIError(
                .conflict, "user \(user.username.debugDescription) is disabled; enable the account (\"disabled\": false) before issuing a ticket",
                reason: .accountDisabled)
        }
        let lifetime = body.expiresIn ?? EnrollmentTickets.defaultLifetime
        guard EnrollmentTickets.lifetimes.contains(lifetime) else {
            throw APIError.badRequest(
                "expiresIn is \(lifetime); a ticket lives \(EnrollmentTickets.lifetimes.lowerBound) to \(EnrollmentTickets.lifetimes.upperBound) seconds")
        }
        let issued = try await services.tickets.issue(
            for: user, lifetime: lifetime,
            recording: [services.events.event(
                .enrollmentTicketIssued, context.eventOrigin(request), user: user, detail: "valid for \(lifetime) seconds")])
        context.logger.notice("enrollment ticket issued", metadata: [
            "user": .quoted(user.username), "expiresIn": "\(lifetime)",
        ])
        let page = services.configuration.origins.first ?? ""
        return JSONResponse.make(
            EnrollmentTicketReply(
                ticket: issued.ticket, expiresAt: RFC3339.string(issued.expiresAt), enrollmentURL: "\(page)/?ticket=\(issued.ticket)"),
            status: .created)
    }

    @Sendable func revokeTickets(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let user = try await namedUser(context)
        let now = Date()
        let event = try services.events.event(.enrollmentTicketRevoked, context.eventOrigin(request), user: user, at: now)
        let revoked = try await services.store.revokeEnrollmentTickets(ofUser: user.handle, now: now) { count in
            var revoking = event
            revoking.detail = count == 1 ? "1 ticket revoked" : "\(count) tickets revoked"
            return [revoking]
        }
        context.logger.notice("enrollment tickets revoked", metadata: [
            "user": .quoted(user.username), "tickets": "\(revoked)",
        ])
        return JSONResponse.make(RevokedTicketsReply(revoked: revoked))
    }

    // MARK: Helpers

    private func userReply(_ user: UserRecord) async throws -> Response {
        let credentials = try await services.store.credentials(ofUser: user.handle)
        let deviceKeys = try await services.store.deviceKeys(ofUser: user.handle)
        return JSONResponse.make(AdminUserReply(user: AdminUser(user, credentials: credentials, deviceKeys: deviceKeys)))
    }

    /// The user the `{username}` path segment names (percent-decoded, folded as usernames are), or a 404.
    private func namedUser(_ context: LatchkeyRequestContext) async throws -> UserRecord {
        guard let segment = context.parameters.get("username") else { throw APIError(.notFound, "no such user") }
        guard let decoded = segment.removingPercentEncoding else {
            throw APIError.badRequest("the username in the path is not percent-encoded UTF-8")
        }
        let (name, user) = try await UserNames.find(decoded) { try await services.store.user(named: $0) }
        guard let user else { throw Self.noUser(name) }
        return user
    }

    private static func noUser(_ username: String) -> APIError {
        APIError(.notFound, "user \"\(username)\" does not exist")
    }

    /// An external ID, as ``PrintableText`` allows in at most 255 bytes.
    static func checkedExternalID(_ raw: String) throws -> String {
        try PrintableText.check(raw, member: "externalId", maximumBytes: maximumExternalIDBytes)
        return raw
    }
}
