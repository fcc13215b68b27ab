/// Why the store refused a write, or failed.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }
        /// Another user already has this username (for example, a racing first registration won).
        public static let usernameTaken = Code("usernameTaken")
        /// The credential ID is registered already (§7.1 step 25).
        public static let credentialAlreadyRegistered = Code("credentialAlreadyRegistered")
        /// The user a write refers to does not exist.
        public static let userNotFound = Code("userNotFound")
        /// Another user already has this external ID.
        public static let externalIdTaken = Code("externalIdTaken")
        /// An admin key or signing key with this name or generation exists already.
        public static let nameTaken = Code("nameTaken")
        /// The enrollment ticket a registration spends is used, revoked, expired or gone.
        public static let ticketNotUsable = Code("ticketNotUsable")
        /// The challenge a write answers was answered already: its pending ceremony is gone.
        public static let challengeSpent = Code("challengeSpent")
        /// The store cannot be used now (unreachable, read-only, an I/O error, no connection within
        /// the deadline); it may come back by itself. Clients should retry shortly.
        public static let unavailable = Code("unavailable")
        /// The call did nothing, for a reason that passes: another process holds SQLite's lock, or
        /// PostgreSQL rolled the call's transaction back to end a deadlock or a serialization
        /// conflict. It may be made again in a moment.
        public static let busy = Code("busy")
        /// The store has no room left to write (disk or quota full).
        public static let full = Code("full")
        /// The database failed; the message has the details.
        public static let database = Code("database")
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
