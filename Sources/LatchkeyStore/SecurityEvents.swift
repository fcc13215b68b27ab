import Foundation

/// What a security event records.
public enum SecurityEventType: String, Sendable, CaseIterable, Codable {
    case userCreated = "user.created"
    /// A user's username, display name or external ID changed by the admin API; the detail says which.
    case userUpdated = "user.updated"
    case passkeyRegistered = "passkey.registered"
    case passkeyRenamed = "passkey.renamed"
    case passkeyRemoved = "passkey.removed"
    /// A sign-in whose counter went backwards: a possible cloned authenticator.
    case passkeyCounterRegressed = "passkey.counter_regressed"
    case deviceKeyEnrolled = "device_key.enrolled"
    case deviceKeyRenamed = "device_key.renamed"
    case deviceKeyRemoved = "device_key.removed"
    case signInSucceeded = "sign_in.succeeded"
    /// A sign-in of a known user that a check refused; the event's reason names the check.
    case signInRefused = "sign_in.refused"
    /// Sign-out, or every session ended by an admin.
    case sessionEnded = "session.ended"
    case accountDeleted = "account.deleted"
    /// An account moved in from another server with its passkeys (`latchkey import`); the detail says how many.
    case accountImported = "account.imported"
    case adminKeyCreated = "admin_key.created"
    case adminKeyRevoked = "admin_key.revoked"
    case enrollmentTicketIssued = "enrollment_ticket.issued"
    case enrollmentTicketUsed = "enrollment_ticket.used"
    /// A user's unspent tickets revoked by the admin API; the event's detail says how many.
    case enrollmentTicketRevoked = "enrollment_ticket.revoked"
    case signingKeyRotated = "signing_key.rotated"
    /// A tenant made, changed or removed by an operator (in the operator's tenant's events, the default's).
    case tenantCreated = "tenant.created"
    case tenantUpdated = "tenant.updated"
    /// A tenant removed with everything it kept; this event is what remains of it.
    case tenantDeleted = "tenant.deleted"
    /// An OpenID client registered, changed (its secret rotated among them) or removed; the detail names the client.
    case oauthClientCreated = "oauth_client.created"
    case oauthClientUpdated = "oauth_client.updated"
    case oauthClientDeleted = "oauth_client.deleted"
    /// Tokens issued for a code, refreshed or revoked; the detail names the client.
    case oauthTokenIssued = "oauth_token.issued"
    case oauthTokenRefreshed = "oauth_token.refreshed"
    case oauthTokenRevoked = "oauth_token.revoked"
    /// A spent refresh token or code presented again: the grant, every token of it, is revoked.
    case oauthTokenReused = "oauth_token.reused"
    /// A signed-in person kept from a client that admits only members of some groups; the detail names the client.
    case oauthAccessDenied = "oauth_access.denied"
}

/// Who caused a security event.
public struct SecurityEventActor: Sendable, Equatable, Hashable {
    public enum Kind: String, Sendable, Codable {
        /// The user the event is about, signed in or signing in.
        case user
        /// A backend, through the admin API; the name is its admin key's.
        case admin
        /// Latchkey itself, or an operator at its command line.
        case system
        /// An operator signed in to the console; the name is the operator's.
        case `operator`
    }

    public var kind: Kind
    /// The admin key's name, or what part of the system acted (`cli`, `tokens`); nil for a user.
    public var name: String?

    public init(_ kind: Kind, name: String? = nil) {
        self.kind = kind
        self.name = name
    }

    public static let user = SecurityEventActor(.user)
    public static func admin(_ keyName: String) -> SecurityEventActor { SecurityEventActor(.admin, name: keyName) }
    public static func system(_ part: String) -> SecurityEventActor { SecurityEventActor(.system, name: part) }
    public static func `operator`(_ name: String) -> SecurityEventActor { SecurityEventActor(.operator, name: name) }

    /// `user`, `admin:NAME` or `system:PART`, as stored.
    public var storedText: String {
        guard let name else { return kind.rawValue }
        return "\(kind.rawValue):\(name)"
    }

    /// Reads ``storedText``; an unknown kind reads as the system.
    public init(storedText: String) {
        let parts = storedText.split(separator: ":", maxSplits: 1).map(String.init)
        self.init(Kind(rawValue: parts.first ?? "") ?? .system, name: parts.count > 1 ? parts[1] : nil)
    }
}

/// One row of the audit log: what changed, for whom, from where and by whom. Written in the same
/// transaction as the change it records. Never holds a challenge, signature, key, token or ticket.
public struct SecurityEvent: Sendable, Equatable {
    /// Unique: `evt_` and 22 base64url characters. Webhook deliveries carry it as `webhook-id`.
    public var id: String
    public var type: SecurityEventType
    public var occurredAt: Date
    public var userHandle: [UInt8]?
    public var username: String?
    /// The passkey or device key involved, if any.
    public var credentialID: [UInt8]?
    /// The passkey's authenticator model, when it is one.
    public var aaguid: [UInt8]?
    /// The authenticator's or provider's name (for example "iCloud Keychain"), when known.
    public var authenticatorName: String?
    /// The client's address as `trustedProxies` resolved it.
    public var clientAddress: String?
    /// The client's `User-Agent`, at most ``maximumUserAgentLength`` characters.
    public var userAgent: String?
    public var requestID: String?
    public var actor: SecurityEventActor
    /// Why: the check that refused a sign-in, how a session ended, what a name became.
    public var detail: String?
    /// The code of the check that refused a sign-in (`userNotVerified`, `accountDisabled`); what the statistics count
    /// refusals by.
    public var reason: String?
    /// Whether the passkey involved may be backed up (a synced, multi-device passkey), when one is.
    public var backupEligible: Bool?
    /// The store's order of writing, set when read back: newer events have larger numbers. The
    /// cursor of event pages.
    public var sequence: Int64

    /// User agents are cut to this many characters.
    public static let maximumUserAgentLength = 256

    public init(
        id: String, type: SecurityEventType, occurredAt: Date, userHandle: [UInt8]? = nil, username: String? = nil,
        credentialID: [UInt8]? = nil, aaguid: [UInt8]? = nil, authenticatorName: String? = nil,
        clientAddress: String? = nil, userAgent: String? = nil, requestID: String? = nil, actor: SecurityEventActor,
        detail: String? = nil, reason: String? = nil, backupEligible: Bool? = nil, sequence: Int64 = 0
    ) {
        self.id = id
        self.type = type
        self.occurredAt = occurredAt
        self.userHandle = userHandle
        self.username = username
        self.credentialID = credentialID
        self.aaguid = aaguid
        self.authenticatorName = authenticatorName
        self.clientAddress = clientAddress
        self.userAgent = userAgent.map { String($0.prefix(Self.maximumUserAgentLength)) }
        self.requestID = requestID
        self.actor = actor
        self.detail = detail
        self.reason = reason
        self.backupEligible = backupEligible
        self.sequence = sequence
    }
}

/// Which events a page holds: newest first, below a cursor.
public struct SecurityEventQuery: Sendable, Equatable {
    public var userHandle: [UInt8]?
    public var types: [SecurityEventType]
    /// Only events at or after this time.
    public var since: Date?
    /// Only events older than the one with this sequence number (the previous page's last).
    public var before: Int64?
    public var limit: Int

    public init(userHandle: [UInt8]? = nil, types: [SecurityEventType] = [], since: Date? = nil, before: Int64? = nil, limit: Int = 50) {
        self.userHandle = userHandle
        self.types = types
        self.since = since
        self.before = before
        self.limit = limit
    }
}

/// Where a webhook delivery stands.
public enum WebhookDeliveryState: String, Sendable, CaseIterable, Codable {
    /// Not yet accepted by its receiver: waiting for its first attempt or its next retry.
    case pending
    /// Its receiver answered 2xx.
    case delivered
    /// Retried for the whole retry window without success; sent again only when an admin asks.
    case dead
}

/// One event on its way to one receiver: an outbox row written in the event's transaction.
public struct WebhookDelivery: Sendable, Equatable {
    /// The store's number for it, increasing in order of writing.
    public var id: Int64
    public var eventID: String
    public var receiver: String
    public var state: WebhookDeliveryState
    public var attempts: Int
    public var createdAt: Date
    public var nextAttemptAt: Date
    /// Retries stop after this time: the delivery is then dead.
    public var retryUntil: Date
    public var deliveredAt: Date?
    /// The last failed attempt's HTTP status or error, without any body.
    public var lastError: String?

    public init(
        id: Int64, eventID: String, receiver: String, state: WebhookDeliveryState, attempts: Int, createdAt: Date,
        nextAttemptAt: Date, retryUntil: Date, deliveredAt: Date? = nil, lastError: String? = nil
    ) {
        self.id = id
        self.eventID = eventID
        self.receiver = receiver
        self.state = state
        self.attempts = attempts
        self.createdAt = createdAt
        self.nextAttemptAt = nextAttemptAt
        self.retryUntil = retryUntil
        self.deliveredAt = deliveredAt
        self.lastError = lastError
    }
}

/// What became of one attempt at a claimed delivery.
public enum WebhookAttemptOutcome: Sendable, Equatable {
    case delivered
    /// Failed; try again at this time.
    case retry(at: Date, error: String)
    /// Failed after the retry window: give up until an admin retries it.
    case dead(error: String)
}

/// How much the outbox holds, for metrics.
public struct WebhookOutboxStatus: Sendable, Equatable {
    /// Pending deliveries.
    public var depth: Int
    /// When the oldest pending delivery was written.
    public var oldestPendingAt: Date?

    public init(depth: Int, oldestPendingAt: Date?) {
        self.depth = depth
        self.oldestPendingAt = oldestPendingAt
    }
}

/// The store's audit log and webhook outbox. Events are written by the mutating methods of the
/// other store protocols, in the transaction of their change; with each event the store writes one
/// pending delivery per webhook receiver it was opened with.
public protocol SecurityEventStore: Sendable {
    /// Writes an event that goes with no change (a refused sign-in), with its deliveries. With `whileItsUserExists`,
    /// only if the event's user is still there, checked in the write's transaction (holding the user's row against
    /// a deletion until it commits), so no event of a user follows their `account.deleted`; false when not written.
    @discardableResult
    func recordEvent(_ event: SecurityEvent, whileItsUserExists: Bool) async throws -> Bool
    /// Events matching `query`, newest first.
    func securityEvents(_ query: SecurityEventQuery) async throws -> [SecurityEvent]
    /// One event by its ID.
    func securityEvent(id: String) async throws -> SecurityEvent?

    /// Leases up to `limit` deliveries to `receivers` due at `now` to `owner` until `leaseUntil`,
    /// each with its event, oldest first. Only the oldest pending delivery of each user (and
    /// receiver) is due, so one user's events reach a receiver in order; a delivery leased to
    /// another owner is not due until its lease ends, so a crashed sender's deliveries go to the
    /// next one that asks.
    func claimWebhookDeliveries(owner: String, now: Date, leaseUntil: Date, limit: Int, receivers: WebhookReceiverSelection)
        async throws -> [(delivery: WebhookDelivery, event: SecurityEvent)]
    /// Records an attempt at a delivery `owner` leased, and ends the lease; false (writing nothing)
    /// when the lease was lost meanwhile.
    func finishWebhookDelivery(id: Int64, owner: String, outcome: WebhookAttemptOutcome, now: Date) async throws -> Bool
    /// Deliveries in `state` (all when nil), newest first, older than the delivery `before`.
    func webhookDeliveries(state: WebhookDeliveryState?, before: Int64?, limit: Int) async throws -> [WebhookDelivery]
    /// Makes a delivery pending again, due now and retried until `retryUntil` (one pending already,
    /// waiting for its next attempt, too); nil when there is no such delivery, and the delivery
    /// unchanged while a sender holds it (an attempt in flight).
    func retryWebhookDelivery(id: Int64, now: Date, retryUntil: Date) async throws -> WebhookDelivery?
    /// How many deliveries are pending, and since when.
    func webhookOutboxStatus() async throws -> WebhookOutboxStatus
    /// Moves the pending deliveries stored under `receiver` to `name`, for a receiver now known by
    /// another name; returns how many moved.
    func renameWebhookReceiver(_ receiver: String, to name: String) async throws -> Int
    /// Deletes events that occurred before `eventsBefore` with every delivery of theirs (whatever
    /// its state), and deliveries delivered before `deliveriesBefore`, in small batches.
    func purgeSecurityEvents(eventsBefore: Date, deliveriesBefore: Date) async throws
}

/// Which receivers' deliveries a claim takes: one sender per receiver, so that a slow receiver
/// holds up only its own deliveries.
public enum WebhookReceiverSelection: Sendable, Equatable {
    /// This receiver's.
    case only(String)
    /// Every receiver's but these (every receiver's when there are none).
    case allBut(Set<String>)

    /// Every receiver's.
    public static let all = WebhookReceiverSelection.allBut([])

    /// The one receiver, or nil; and the receivers left out (none for one receiver).
    public var parts: (only: String?, excluded: [String]) {
        switch self {
        case .only(let receiver): (receiver, [])
        case .allBut(let excluded): (nil, excluded.sorted())
        }
    }
}

/// Where a store sends each event it writes: one pending delivery per receiver, retried until
/// `retryWindow` after the event.
public struct WebhookOutbox: Sendable, Equatable {
    /// The receivers' names: what each delivery records as its receiver.
    public var receivers: [String]
    /// How long a delivery is retried before it is dead.
    public var retryWindow: TimeInterval

    /// How long deliveries are retried unless a store is told otherwise: 24 hours.
    public static let defaultRetryWindow: TimeInterval = 24 * 3600

    public init(receivers: [String], retryWindow: TimeInterval = defaultRetryWindow) {
        self.receivers = receivers
        self.retryWindow = retryWindow
    }

    /// No receivers: events are only logged in the store.
    public static let none = WebhookOutbox(receivers: [])
}

extension SecurityEventStore {
    /// Writes an event that goes with no change, whether or not its user is still there.
    public func recordEvent(_ event: SecurityEvent) async throws {
        try await recordEvent(event, whileItsUserExists: false)
    }
}

/// A fact the service notes on an event and the statistics count by: written as the event's ``SecurityEvent/detail``
/// (so its words in the feed, the page and webhooks are what they were) and read back only through
/// ``SecurityEvent/fact``, so no reader compares the text.
public enum SecurityEventFact: String, Sendable, CaseIterable {
    /// A sign-in without a username: the passkey named the user.
    case usernameless
    /// A sign-in with a device key.
    case deviceKey = "device key"
    /// A device key enrolled with an App Attest assertion.
    case appAttested = "app attested"
}

extension SecurityEvent {
    /// The fact the event's detail records, if it records one.
    public var fact: SecurityEventFact? { detail.flatMap(SecurityEventFact.init(rawValue:)) }
}
