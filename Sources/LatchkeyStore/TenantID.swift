/// The name of one relying party a store keeps apart from every other (a tenant): every user, passkey,
/// challenge, session, ticket, key and event is stored with it, and a store scoped to one tenant
/// (`LatchkeyStore.scoped(to:)`) neither reads nor changes another's. A single-tenant server uses
/// ``default``, which is also what a store written before tenants existed holds.
public struct TenantID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// 1 to 63 lowercase ASCII letters, digits and `-`, starting with a letter or digit (a DNS label's shape).
    public let rawValue: String

    /// The tenant named `rawValue`; nil when it is not such a name (``problem(with:)`` says why).
    public init?(_ rawValue: String) {
        guard Self.problem(with: rawValue) == nil else { return nil }
        self.rawValue = rawValue
    }

    private init(unchecked rawValue: String) { self.rawValue = rawValue }

    /// The tenant of a single-tenant server and of a store from before tenants.
    public static let `default` = TenantID(unchecked: "default")

    /// Not a tenant: where operator keys are kept, as the admin keys of a name no tenant can have (``problem(with:)``
    /// refuses its `_`), so an operator key is never any tenant's admin key.
    public static let operators = TenantID(unchecked: "_operators")

    /// Why `text` cannot name a tenant; nil when it can.
    public static func problem(with text: String) -> String? {
        let bytes = Array(text.utf8)
        guard (1...63).contains(bytes.count) else { return "a tenant ID is 1 to 63 characters long" }
        func isLetterOrDigit(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard bytes.allSatisfy({ isLetterOrDigit($0) || $0 == UInt8(ascii: "-") }) else {
            return "a tenant ID has only lowercase letters, digits and '-'"
        }
        guard let first = bytes.first, isLetterOrDigit(first) else { return "a tenant ID starts with a letter or digit" }
        return nil
    }

    public var description: String { rawValue }

    public static func < (lhs: TenantID, rhs: TenantID) -> Bool { lhs.rawValue < rhs.rawValue }
}
