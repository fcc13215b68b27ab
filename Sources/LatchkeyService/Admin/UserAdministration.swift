import Foundation
import LatchkeyStore
import Logging
import WebAuthn

/// What a backend does with the accounts through the admin API: creates users for its own accounts, reads,
/// changes and deletes them, removes their passkeys and device keys, ends their sessions, and issues and
/// revokes enrollment tickets. The caller is an admin key, never a user's session.
package struct UserAdministration: Sendable {
    let service: RelyingPartyService

    /// The most an external ID may be, in UTF-8 bytes.
    package static let maximumExternalIDBytes = 255

    /// A new user with no passkey yet (the backend then issues a ticket).
    package func create(_ request: CreateUserRequest, caller: Caller) async throws -> UserRecord {
        let spelling = try UserNames.spelling(request.username)
        let username = try UserNames.folded(spelling)
        let displayName = try request.displayName.flatMap { $0.isEmpty ? nil : $0 }.map { try UserNames.displayName($0) } ?? spelling
        let externalId = try request.externalId.map(Self.checkedExternalID)
        let user = UserRecord(
            handle: try SecureRandom.bytes(count: 64), username: username, displayName: displayName, createdAt: Date(),
            externalId: externalId)
        try await service.store.createUser(user, recording: [service.events.event(.userCreated, caller.origin, user: user)])
        caller.logger.notice("user created by the admin API", metadata: ["user": .quoted(username)])
        return user
    }

    /// The user a backend knows by its own identifier.
    package func user(externalId: String) async throws -> UserRecord {
        guard !externalId.isEmpty else { throw ServiceError.invalid("externalId is empty; leave it out to list every user") }
        guard let user = try await service.store.user(externalId: externalId) else {
            throw ServiceError(.notFound, "no user has externalId \"\(externalId)\"")
        }
        return user
    }

    /// Every user, a page at a time in the order of their usernames, from after `after`.
    package func users(after: String?, limit: Int) async throws -> [UserOverview] {
        try await service.store.users(after: after, limit: limit)
    }

    /// The user `name` names (folded as usernames are, or as an account kept under earlier rules is found).
    package func user(named name: String) async throws -> UserRecord {
        let (username, user) = try await UserNames.find(name) { try await service.store.user(named: $0) }
        guard let user else { throw Self.noUser(username) }
        return user
    }

    /// The groups `user` is in.
    package func groups(of user: UserRecord) async throws -> [String] {
        try await service.store.groups(ofUser: user.handle)
    }

    /// Makes `groups` `user`'s groups, recorded as `user.updated`.
    package func setGroups(_ groups: [String], of user: UserRecord, caller: Caller) async throws -> [String] {
        if let problem = GroupNames.problem(groups, member: "groups") { throw ServiceError.invalid(problem) }
        let sorted = Set(groups).sorted()
        let event = try service.events.event(
            .userUpdated, caller.origin, user: user, detail: sorted.isEmpty ? "groups removed" : "groups: \(sorted.joined(separator: ", "))")
        guard try await service.store.setGroups(sorted, ofUser: user.handle, recording: [event]) else { throw Self.noUser(user.username) }
        return sorted
    }

    /// Makes `text` (an email address or an E.164 number, form-checked; nil removes it) `user`'s contact, unverified,
    /// recorded as `user.updated`.
    package func setContact(_ text: String?, of user: UserRecord, caller: Caller) async throws -> UserContact? {
        let contact = try text.map { text throws(ServiceError) in try ContactIdentifier.parse(text, member: "contact") }
        let event = try service.events.event(
            .userUpdated, caller.origin, user: user, detail: contact.map { "contact: \($0.kind.rawValue)" } ?? "contact removed")
        guard try await service.store.setContact(contact, ofUser: user.handle, recording: [event]) else { throw Self.noUser(user.username) }
        return contact
    }

    /// The contact `user`'s account was created with, if any.
    package func contact(of user: UserRecord) async throws -> UserContact? {
        try await service.store.contact(ofUser: user.handle)
    }

    /// A user's passkeys and device keys.
    package func keys(of user: UserRecord) async throws -> (passkeys: [CredentialRecord], deviceKeys: [DeviceKeyRecord]) {
        (try await service.store.credentials(ofUser: user.handle), try await service.store.deviceKeys(ofUser: user.handle))
    }

    /// Changes what the backend may change of a user: username, display name, external ID, and whether the
    /// account is disabled (which ends its sessions). The handle, so every passkey and token subject, stays.
    package func update(_ user: UserRecord, with request: UpdateUserRequest, caller: Caller) async throws -> UserRecord {
        guard request.username != nil || request.displayName != nil || request.externalId != nil || request.disabled != nil else {
            throw ServiceError.invalid("name what to change: username, displayName, externalId or disabled")
        }
        var updated = user
        let spelling = try request.username.map(UserNames.spelling)
        if let spelling { updated = try UserNames.renaming(user, to: spelling) }
        if let displayName = request.displayName {
            updated.displayName = displayName.isEmpty ? spelling ?? updated.username : try UserNames.displayName(displayName)
        }
        if let externalId = request.externalId { updated.externalId = try externalId.map(Self.checkedExternalID) }
        if let disabled = request.disabled { updated.disabled = disabled }
        let renamed = [
            updated.username == user.username ? nil : "username (was \"\(user.username)\")",
            updated.displayName == user.displayName ? nil : "displayName",
            Self.sameBytes(updated.externalId, user.externalId) ? nil : "externalId",
        ].compactMap { $0 }
        let changes = (renamed.isEmpty ? [] : ["changed " + renamed.joined(separator: ", ")])
            + (updated.disabled == user.disabled ? [] : [updated.disabled ? "disabled the account" : "enabled the account"])
        if !changes.isEmpty {
            let event = try service.events.event(.userUpdated, caller.origin, user: updated, detail: changes.joined(separator: "; "))
            guard try await service.store.updateUser(updated, from: user, recording: [event]) else {
                // Removed, or changed by another request since it was read: nothing was written.
                guard try await service.store.user(handle: user.handle) != nil else { throw Self.noUser(user.username) }
                throw ServiceError(
                    .conflict, "user \(user.username.debugDescription) was changed by another request at the same time; read it again and resend the change")
            }
            caller.logger.notice("user updated by the admin API", metadata: [
                "user": .quoted(updated.username), "changed": "\(changes.joined(separator: "; "))",
            ])
        }
        // A disabled account's sessions already count as none; ending them keeps them from coming back with it.
        // Done also when it was disabled already (a retry after a failed ending), and when it is enabled again:
        // a sign-in verified while the account was being disabled may have left a session since.
        if let disabled = request.disabled, disabled || user.disabled {
            // Disabling ends the sessions as ending them does, and is recorded the same way.
            let ending = disabled
                ? [try service.events.event(.sessionEnded, caller.origin, user: updated, detail: "every session ended: the account was disabled")]
                : []
            _ = try await service.store.deleteSessions(ofUser: user.handle, recording: ending)
            // And every grant of the OpenID provider: enabled again, the account signs in to its apps anew.
            if disabled { _ = try await service.store.revokeOAuthGrants(ofUser: user.handle, now: Date()) }
        }
        return updated
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

    /// Deletes a user with everything of theirs.
    package func delete(_ user: UserRecord, caller: Caller) async throws {
        let event = try service.events.event(.accountDeleted, caller.origin, user: user)
        guard let removed = try await service.store.deleteUser(handle: user.handle, recording: [event]) else {
            throw Self.noUser(user.username)
        }
        for id in removed {
            service.authenticationVerifier.keyCache?.invalidate(credentialID: id)
        }
        caller.logger.notice("user deleted by the admin API", metadata: [
            "user": .quoted(user.username), "passkeys": "\(removed.count)",
        ])
    }

    /// Removes any passkey of the user, the last one included: the backend knows how the person gets back in (a
    /// ticket, say).
    package func removePasskey(_ id: [UInt8], of user: UserRecord, caller: Caller) async throws {
        guard !id.isEmpty, let credential = try await service.store.credential(id: id), credential.userHandle == user.handle,
              try await service.store.deleteCredentialEvenIfLast(
                  id: id, ownedBy: user.handle, recording: [service.events.event(.passkeyRemoved, caller.origin, user: user, credential: credential)])
        else {
            throw ServiceError(.notFound, "user \"\(user.username)\" has no passkey with this id")
        }
        service.authenticationVerifier.keyCache?.invalidate(credentialID: id)
        caller.logger.notice("passkey removed by the admin API", metadata: [
            "user": .quoted(user.username), "credential": "\(RelyingPartyService.logID(id))",
        ])
    }

    /// Removes a device key of the user, such as one on a phone they lost.
    package func removeDeviceKey(_ id: [UInt8], of user: UserRecord, caller: Caller) async throws {
        guard !id.isEmpty,
              try await service.store.deleteDeviceKey(
                  id: id, ownedBy: user.handle, recording: [service.events.event(.deviceKeyRemoved, caller.origin, user: user, credentialID: id)])
        else {
            throw ServiceError(.notFound, "user \"\(user.username)\" has no device key with this id")
        }
        caller.logger.notice("device key removed by the admin API", metadata: [
            "user": .quoted(user.username), "deviceKey": "\(RelyingPartyService.logID(id))",
        ])
    }

    /// The user's live sessions, newest first: the 100 newest.
    package func sessions(of user: UserRecord) async throws -> [SessionOverview] {
        try await service.store.sessions(ofUser: user.handle, now: Date(), limit: 100)
    }

    /// Ends every session of the user; returns how many there were.
    package func endSessions(of user: UserRecord, caller: Caller) async throws -> Int {
        let event = try service.events.event(.sessionEnded, caller.origin, user: user, detail: "every session ended by an admin")
        let ended = try await service.store.deleteSessions(ofUser: user.handle, recording: [event])
        caller.logger.notice("sessions ended by the admin API", metadata: [
            "user": .quoted(user.username), "sessions": "\(ended)",
        ])
        return ended
    }

    /// A ticket issued, with the page URL that spends it.
    package struct IssuedTicket: Sendable {
        package let ticket: String
        package let expiresAt: Date
        package let enrollmentURL: String
    }

    /// Issues an enrollment ticket for the user, valid `expiresIn` seconds (default ``EnrollmentTickets/defaultLifetime``).
    package func issueTicket(for user: UserRecord, expiresIn: Int?, caller: Caller) async throws -> IssuedTicket {
        // It could never be used: a disabled account adds no key.
        guard !user.disabled else {
            throw ServiceError(
                .conflict, "user \(user.username.debugDescription) is disabled; enable the account (\"disabled\": false) before issuing a ticket",
                reason: .accountDisabled)
        }
        let lifetime = expiresIn ?? EnrollmentTickets.defaultLifetime
        guard EnrollmentTickets.lifetimes.contains(lifetime) else {
            throw ServiceError.invalid(
                "expiresIn is \(lifetime); a ticket lives \(EnrollmentTickets.lifetimes.lowerBound) to \(EnrollmentTickets.lifetimes.upperBound) seconds")
        }
        let issued = try await service.tickets.issue(
            for: user, lifetime: lifetime,
            recording: [service.events.event(.enrollmentTicketIssued, caller.origin, user: user, detail: "valid for \(lifetime) seconds")])
        caller.logger.notice("enrollment ticket issued", metadata: [
            "user": .quoted(user.username), "expiresIn": "\(lifetime)",
        ])
        let page = service.configuration.origins.first ?? ""
        return IssuedTicket(ticket: issued.ticket, expiresAt: issued.expiresAt, enrollmentURL: "\(page)/#ticket=\(issued.ticket)")
    }

    /// Revokes every live ticket of the user; returns how many there were.
    package func revokeTickets(of user: UserRecord, caller: Caller) async throws -> Int {
        let now = Date()
        let event = try service.events.event(.enrollmentTicketRevoked, caller.origin, user: user, at: now)
        let revoked = try await service.store.revokeEnrollmentTickets(ofUser: user.handle, now: now) { count in
            var revoking = event
            revoking.detail = count == 1 ? "1 ticket revoked" : "\(count) tickets revoked"
            return [revoking]
        }
        caller.logger.notice("enrollment tickets revoked", metadata: [
            "user": .quoted(user.username), "tickets": "\(revoked)",
        ])
        return revoked
    }

    private static func noUser(_ username: String) -> ServiceError {
        ServiceError(.notFound, "user \"\(username)\" does not exist")
    }

    /// An external ID, as ``PrintableText`` allows in at most 255 bytes.
    package static func checkedExternalID(_ raw: String) throws -> String {
        try PrintableText.check(raw, member: "externalId", maximumBytes: maximumExternalIDBytes)
        return raw
    }
}
