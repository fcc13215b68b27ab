import Foundation

/// What a statistics row counts. Each is kept per day (and tenant), some per a dimension (a refusal's reason, a
/// provider's name); the ``isRunningTotal`` ones are changes of a total (users, users with a passkey), summed from the
/// first day.
public enum StatisticsMetric: String, Sendable, CaseIterable, Codable {
    /// Sign-ins that succeeded, with a passkey or a device key.
    case signInsSucceeded = "sign_ins.succeeded"
    /// Sign-ins of known users refused by a check; the dimension is the check's reason code.
    case signInsRefused = "sign_ins.refused"
    /// Passkey sign-ins that named no user (discoverable credentials).
    case usernamelessSignIns = "sign_ins.usernameless"
    /// Sign-ins with an enrolled device key.
    case deviceKeySignIns = "sign_ins.device_key"
    /// Passkeys registered; the dimension is the provider's name, `unknown` when it has none.
    case registrations = "registrations"
    /// Passkeys registered; the dimension is ``StatisticsCount/synced``, ``StatisticsCount/deviceBound`` or, for an
    /// event from before events recorded it, ``StatisticsCount/unknownBackup``.
    case registrationsByBackup = "registrations.backup"
    case passkeysRemoved = "passkeys.removed"
    case deviceKeysEnrolled = "device_keys.enrolled"
    /// Device keys enrolled with an App Attest attestation.
    case appAttestedDeviceKeys = "device_keys.app_attested"
    case deviceKeysRemoved = "device_keys.removed"
    /// Distinct users who signed in that day.
    case activeUsers = "users.active"
    /// The change in how many users there are (created less deleted).
    case users = "users"
    /// The change in how many users have at least one passkey.
    case usersWithPasskey = "users.with_passkey"
    case ticketsIssued = "tickets.issued"
    case ticketsSpent = "tickets.spent"
    /// Webhook deliveries a receiver accepted, on the day it did.
    case webhooksDelivered = "webhooks.delivered"
    /// Webhook deliveries given up on, on the day the last attempt failed.
    case webhooksDead = "webhooks.dead"
    /// Sign-ins through the OpenID provider (a code exchanged for tokens); the dimension is the client's ID.
    case openIDSignIns = "openid.sign_ins"

    /// A change of a total rather than a count of the day's occurrences.
    public var isRunningTotal: Bool { self == .users || self == .usersWithPasskey }

    /// Counted from webhook attempts, not from events: a rebuild from the events keeps these rows.
    public var isFromOutbox: Bool { self == .webhooksDelivered || self == .webhooksDead }
}

/// One addition to a day's statistics row.
public struct StatisticsCount: Sendable, Hashable {
    public var metric: StatisticsMetric
    /// What the metric is broken down by (a reason, a provider); empty when it is not.
    public var dimension: String
    public var amount: Int64

    public init(_ metric: StatisticsMetric, _ dimension: String = "", amount: Int64 = 1) {
        self.metric = metric
        self.dimension = dimension
        self.amount = amount
    }

    /// The backup dimensions of ``StatisticsMetric/registrationsByBackup``: backup eligible (a synced, multi-device
    /// passkey) or not.
    public static let synced = "synced", deviceBound = "device-bound", unknownBackup = "unknown"
    /// The provider of a passkey whose model has no name.
    public static let unknownProvider = "unknown"
    /// The reason of a refusal recorded without one.
    public static let unknownReason = "unknown"
    /// The client of an OpenID sign-in recorded without one.
    public static let unknownClient = "unknown"
    /// The longest dimension kept; longer ones are cut.
    public static let maximumDimensionLength = 100
}

/// One stored statistics row, summed over the store's write slots.
public struct StatisticsRow: Sendable, Hashable {
    public var day: StatisticsDay
    public var metric: StatisticsMetric
    public var dimension: String
    public var count: Int64

    public init(day: StatisticsDay, metric: StatisticsMetric, dimension: String, count: Int64) {
        self.day = day
        self.metric = metric
        self.dimension = dimension
        self.count = count
    }
}

/// A range of days' statistics as stored, and the running totals as of the range's first day.
public struct StatisticsReport: Sendable, Equatable {
    /// Every nonzero row of the range, by day.
    public var rows: [StatisticsRow]
    /// The sum of each ``StatisticsMetric/isRunningTotal`` metric over the days before the range.
    public var totalsBefore: [StatisticsMetric: Int64]

    public init(rows: [StatisticsRow], totalsBefore: [StatisticsMetric: Int64]) {
        self.rows = rows
        self.totalsBefore = totalsBefore
    }
}

/// What a rebuild of the statistics from the events did.
public struct StatisticsRebuild: Sendable, Equatable {
    /// Events read.
    public var events: Int
    /// Rows written.
    public var rows: Int
    /// How much the running totals were corrected on the first day so that they end at what the store holds
    /// (nonzero when older events were purged): users, users with a passkey.
    public var usersCorrection: Int64
    public var usersWithPasskeyCorrection: Int64

    public init(events: Int, rows: Int, usersCorrection: Int64, usersWithPasskeyCorrection: Int64) {
        self.events = events
        self.rows = rows
        self.usersCorrection = usersCorrection
        self.usersWithPasskeyCorrection = usersWithPasskeyCorrection
    }
}

/// The statistics a store keeps as its data changes: per day and tenant, written in the transaction of each event
/// (and each webhook attempt), so a range costs O(days) to read, not O(events).
public protocol StatisticsStore: Sendable {
    /// The rows of the days `from` through `through`, and the running totals before `from`.
    func statistics(from: StatisticsDay, through: StatisticsDay) async throws -> StatisticsReport
    /// Replaces this tenant's statistics rows (but the outbox's, ``StatisticsMetric/isFromOutbox``) by ones built from
    /// its events, oldest first, as live writes would have made them; the running totals are corrected on the first
    /// day to end at the users and passkey holders the store holds. Live writes wait meanwhile.
    func rebuildStatistics() async throws -> StatisticsRebuild
}
