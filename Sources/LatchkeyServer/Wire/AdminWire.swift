import Foundation
import LatchkeyService
import LatchkeyStore
import WebAuthn

/// A user as the admin API shows them.
struct AdminUser: Encodable, Sendable {
    var username: String
    var displayName: String
    /// The WebAuthn user handle, base64url: the `sub` of their tokens.
    var userHandle: Base64URLBytes
    var externalId: String?
    /// How many passkeys they have.
    var passkeys: Int
    var createdAt: Date
    /// The last use of any of their passkeys and device keys; nil when they never signed in.
    var lastSignInAt: Date?
    /// Whether the backend disabled the account.
    var disabled: Bool
    /// The contact the account was created with, unverified; in a single user's reply, when there is one.
    var contact: UserContact?
    /// The groups the user is in; in a single user's reply.
    var groups: [String]?

    init(_ user: UserRecord, credentials: [CredentialRecord], deviceKeys: [DeviceKeyRecord]) {
        let lastUses = credentials.compactMap(\.lastUsedAt) + deviceKeys.compactMap(\.lastUsedAt)
        self.init(UserOverview(user: user, passkeys: credentials.count, lastSignInAt: lastUses.max()))
    }

    init(_ overview: UserOverview) {
        username = overview.user.username
        displayName = overview.user.displayName
        userHandle = Base64URLBytes(overview.user.handle)
        externalId = overview.user.externalId
        passkeys = overview.passkeys
        createdAt = overview.user.createdAt
        lastSignInAt = overview.lastSignInAt
        disabled = overview.user.disabled
    }

    private enum CodingKeys: String, CodingKey {
        case username, displayName, userHandle, externalId, passkeys, createdAt, lastSignInAt, disabled, contact, groups
    }

    private enum ContactKeys: String, CodingKey { case kind, value }

    /// Dates as RFC 3339 in UTC; `externalId` and `lastSignInAt` as null (not absent) when unset.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(username, forKey: .username)
        try container.encode(displayName, forKey: .displayName)
        try container.encode(userHandle, forKey: .userHandle)
        try container.encode(externalId, forKey: .externalId)
        try container.encode(passkeys, forKey: .passkeys)
        try container.encode(RFC3339.string(createdAt), forKey: .createdAt)
        try container.encode(lastSignInAt.map(RFC3339.string), forKey: .lastSignInAt)
        try container.encode(disabled, forKey: .disabled)
        if let contact {
            var nested = container.nestedContainer(keyedBy: ContactKeys.self, forKey: .contact)
            try nested.encode(contact.kind.rawValue, forKey: .kind)
            try nested.encode(contact.value, forKey: .value)
        }
        try container.encodeIfPresent(groups, forKey: .groups)
    }
}

/// A reply with one user.
struct AdminUserReply: ReplyBody {
    var user: AdminUser
}

/// `GET /admin/v1/users`: a page of users in the order of their usernames; `nextCursor` asks for the next.
struct AdminUserPage: ReplyBody {
    var users: [AdminUser]
    var nextCursor: String?
}

/// `GET /admin/v1/users/{username}/credentials`: the same passkey and device-key objects as `GET /credentials`.
struct AdminCredentialListReply: ReplyBody {
    var username: String
    var credentials: [CredentialSummary]
    var deviceKeys: [DeviceKeySummary]
}

/// `DELETE /admin/v1/users/{username}/sessions` reply.
struct EndedSessionsReply: ReplyBody {
    /// How many live or expired-but-kept sessions were ended.
    var ended: Int
}

/// `POST /admin/v1/users/{username}/enrollment-tickets` body.
struct EnrollmentTicketRequest: Decodable, Sendable {
    /// Seconds the ticket is valid: 30 to 86400, 600 when absent.
    var expiresIn: Int?
}

/// `POST /admin/v1/users/{username}/enrollment-tickets` reply.
struct EnrollmentTicketReply: ReplyBody {
    /// The ticket, shown once: `lk_ticket_...`.
    var ticket: String
    var expiresAt: String
    /// The page's enrollment link for this ticket (`/#ticket=...` on the first origin: a fragment, which browsers never
    /// send, so no proxy or access log keeps the ticket).
    var enrollmentURL: String
}

/// `DELETE /admin/v1/users/{username}/enrollment-tickets` reply.
struct RevokedTicketsReply: ReplyBody {
    var revoked: Int
}

/// One live session as `GET /admin/v1/users/{username}/sessions` lists it.
struct SessionSummary: Encodable, Sendable {
    var createdAt: String
    var expiresAt: String
    /// `passkey` (a sign-in or registration with one) or `deviceKey`.
    var signedInWith: String

    init(_ session: SessionOverview) {
        createdAt = RFC3339.string(session.createdAt)
        expiresAt = RFC3339.string(session.expiresAt)
        signedInWith = session.deviceKey ? "deviceKey" : "passkey"
    }
}

struct SessionListReply: ReplyBody {
    var sessions: [SessionSummary]
}
