import Foundation

/// What one user's history changes in the totals that need to know that user's state: whether they already signed
/// in that day, how many passkeys they hold.
public enum UserStatisticsChange: Sendable, Equatable {
    /// Signed in: counts as active once a day.
    case signedIn
    case passkeyAdded
    case passkeyRemoved
    /// The account is gone, with its passkeys.
    case deleted
    /// The account moved in with this many passkeys.
    case imported(passkeys: Int64)

    /// The count this change derives from what the user's row says after it (what a store's SQL `RETURNING`s): for a
    /// sign-in, anything when the row changed (the first that day); for a passkey added or removed, the passkeys held
    /// now; for a deletion, those held before; nil when there was no such row to change. The one rule both stores and
    /// a rebuild follow (PostgreSQL's statements state it in SQL).
    public func derivedCount(returned value: Int64?) -> StatisticsCount? {
        switch (self, value) {
        case (.signedIn, .some): StatisticsCount(.activeUsers)
        case (.passkeyAdded, 1): StatisticsCount(.usersWithPasskey)
        case (.passkeyRemoved, 0): StatisticsCount(.usersWithPasskey, amount: -1)
        case (.deleted, .some(let passkeys)) where passkeys > 0: StatisticsCount(.usersWithPasskey, amount: -1)
        case (.imported(let passkeys), .some(let held)) where passkeys > 0 && held == passkeys: StatisticsCount(.usersWithPasskey)
        default: nil
        }
    }
}

/// What one security event adds to the statistics: counts of its own, and a change of its user's state (from which
/// the store derives ``StatisticsMetric/activeUsers`` and ``StatisticsMetric/usersWithPasskey``). The same for a
/// live write and a rebuild from the events, so the two give the same rows.
public struct EventStatistics: Sendable {
    public var day: StatisticsDay
    public var counts: [StatisticsCount]
    public var userChange: (handle: [UInt8], change: UserStatisticsChange)?

    /// The name a passkey of an unnamed model is given, counted as an unknown provider.
    public static let genericAuthenticatorName = "Passkey"

    public init(of event: SecurityEvent) {
        day = StatisticsDay(event.occurredAt)
        counts = []
        userChange = nil
        let handle = event.userHandle
        switch event.type {
        case .signInSucceeded:
            counts.append(StatisticsCount(.signInsSucceeded))
            if event.fact == .deviceKey { counts.append(StatisticsCount(.deviceKeySignIns)) }
            if event.fact == .usernameless { counts.append(StatisticsCount(.usernamelessSignIns)) }
            if let handle { userChange = (handle, .signedIn) }
        case .signInRefused:
            counts.append(StatisticsCount(.signInsRefused, Self.dimension(event.reason, else: StatisticsCount.unknownReason)))
        case .passkeyRegistered:
            let provider = event.authenticatorName == Self.genericAuthenticatorName ? nil : event.authenticatorName
            counts.append(StatisticsCount(.registrations, Self.dimension(provider, else: StatisticsCount.unknownProvider)))
            let backup = event.backupEligible.map { $0 ? StatisticsCount.synced : StatisticsCount.deviceBound } ?? StatisticsCount.unknownBackup
            counts.append(StatisticsCount(.registrationsByBackup, backup))
            if let handle { userChange = (handle, .passkeyAdded) }
        case .passkeyRemoved:
            counts.append(StatisticsCount(.passkeysRemoved))
            if let handle { userChange = (handle, .passkeyRemoved) }
        case .deviceKeyEnrolled:
            counts.append(StatisticsCount(.deviceKeysEnrolled))
            if event.fact == .appAttested { counts.append(StatisticsCount(.appAttestedDeviceKeys)) }
        case .deviceKeyRemoved:
            counts.append(StatisticsCount(.deviceKeysRemoved))
        case .userCreated:
            counts.append(StatisticsCount(.users))
        case .accountDeleted:
            counts.append(StatisticsCount(.users, amount: -1))
            if let handle { userChange = (handle, .deleted) }
        case .accountImported:
            counts.append(StatisticsCount(.users))
            if let handle { userChange = (handle, .imported(passkeys: Self.importedPasskeys(in: event.detail))) }
        case .enrollmentTicketIssued:
            counts.append(StatisticsCount(.ticketsIssued))
        case .enrollmentTicketUsed:
            counts.append(StatisticsCount(.ticketsSpent))
        case .oauthTokenIssued:
            counts.append(StatisticsCount(.openIDSignIns, Self.dimension(Self.clientID(in: event.detail), else: StatisticsCount.unknownClient)))
        case .userUpdated, .passkeyRenamed, .passkeyCounterRegressed, .deviceKeyRenamed, .sessionEnded, .adminKeyCreated,
             .adminKeyRevoked, .enrollmentTicketRevoked, .signingKeyRotated, .tenantCreated, .tenantUpdated, .tenantDeleted, .oauthClientCreated, .oauthClientUpdated,
             .oauthClientDeleted, .oauthTokenRefreshed, .oauthTokenRevoked, .oauthTokenReused, .oauthAccessDenied:
            break
        }
    }

    /// The detail of an imported account's event: `imported with N passkeys`.
    public static func importedDetail(passkeys: Int) -> String { "imported with \(passkeys) passkey\(passkeys == 1 ? "" : "s")" }

    /// How many passkeys ``importedDetail(passkeys:)`` says; 0 for any other text.
    private static func importedPasskeys(in detail: String?) -> Int64 {
        guard let detail, detail.hasPrefix("imported with ") else { return 0 }
        return Int64(detail.dropFirst("imported with ".count).prefix { $0.isASCII && $0.isNumber }) ?? 0
    }

    /// The client an OpenID event's detail names: `client ID (name)…`.
    private static func clientID(in detail: String?) -> String? {
        guard let detail, detail.hasPrefix("client ") else { return nil }
        return detail.dropFirst("client ".count).split(separator: " ", maxSplits: 1).first.map(String.init)
    }

    private static func dimension(_ text: String?, else fallback: String) -> String {
        guard let text, !text.isEmpty else { return fallback }
        return String(text.prefix(StatisticsCount.maximumDimensionLength))
    }
}

/// The per-user state behind ``StatisticsMetric/activeUsers`` and ``StatisticsMetric/usersWithPasskey``, as a store
/// keeps it in a row per user: the rules both the stores' SQL and a rebuild in memory follow.
public struct UserStatisticsState: Sendable, Equatable {
    public var passkeys: Int64
    /// The last day the user signed in.
    public var lastActiveDay: StatisticsDay?

    public init(passkeys: Int64 = 0, lastActiveDay: StatisticsDay? = nil) {
        self.passkeys = passkeys
        self.lastActiveDay = lastActiveDay
    }

    /// Applies `change` on `day` to `state` (nil: no row), returning the new state (nil: the row deleted) and the count
    /// it derives, if any.
    public static func apply(_ change: UserStatisticsChange, on day: StatisticsDay, to state: UserStatisticsState?)
        -> (state: UserStatisticsState?, derived: StatisticsCount?)
    {
        var next = state ?? UserStatisticsState()
        switch change {
        case .signedIn:
            guard next.lastActiveDay != day else { return (next, nil) }
            next.lastActiveDay = day
            return (next, change.derivedCount(returned: 1))
        case .passkeyAdded:
            next.passkeys += 1
            return (next, change.derivedCount(returned: next.passkeys))
        case .passkeyRemoved:
            guard let state, state.passkeys > 0 else { return (state, nil) }
            next.passkeys -= 1
            return (next, change.derivedCount(returned: next.passkeys))
        case .deleted:
            return (nil, change.derivedCount(returned: state?.passkeys))
        case .imported(let passkeys):
            next.passkeys += passkeys
            return (next, change.derivedCount(returned: next.passkeys))
        }
    }
}
