import WebAuthn

/// Why the store refused a write, or failed.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public typealias Code = ErrorCode<StoreError>

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

extension ErrorCode where Domain == StoreError {
    /// Another user already has this username (for example, a racing first registration won).
    public static var usernameTaken: Self { Self("usernameTaken") }
    /// The credential ID is registered already (§7.1 step 25).
    public static var credentialAlreadyRegistered: Self { Self("credentialAlreadyRegistered") }
    /// The user a write refers to does not exist.
    public static var userNotFound: Self { Self("userNotFound") }
    /// Another user already has this external ID.
    public static var externalIdTaken: Self { Self("externalIdTaken") }
    /// An admin key or signing key with this name or generation exists already.
    public static var nameTaken: Self { Self("nameTaken") }
    /// The enrollment ticket a registration spends is used, revoked, expired or gone.
    public static var ticketNotUsable: Self { Self("ticketNotUsable") }
    /// The challenge a write answers was answered already: its pending ceremony is gone.
    public static var challengeSpent: Self { Self("challengeSpent") }
    /// The store cannot be used now (unreachable, read-only, an I/O error, no connection within
    /// the deadline); it may come back by itself. Clients should retry shortly.
    public static var unavailable: Self { Self("unavailable") }
    /// The call did nothing, for a reason that passes: another process holds SQLite's lock, or
    /// PostgreSQL rolled the call's transaction back to end a deadlock or a serialization
    /// conflict. It may be made again in a moment.
    public static var busy: Self { Self("busy") }
    /// The store has no room left to write (disk or quota full).
    public static var full: Self { Self("full") }
    /// The database failed; the message has the details.
    public static var database: Self { Self("database") }
}
