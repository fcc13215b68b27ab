#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An RP ID as browsers accept one (WebAuthn §5.1.3 wants a valid domain): a lower-case domain
/// name of two labels or more, or `localhost`; without scheme, port or path; not an IP address.
/// ``RelyingParty`` takes its `id` as given; this says what is wrong with one.
public struct RelyingPartyID: Sendable, Hashable, CustomStringConvertible {
    /// The RP ID, such as `example.com`.
    public let value: String

    public var description: String { value }

    /// `localhost`: the RP ID of a server on this machine.
    public static let localhost = RelyingPartyID(valid: "localhost")

    private init(valid: String) { value = valid }

    /// Checks `text`; the error says everything that is wrong with it.
    public init(parsing text: String) throws(IdentityProblem) {
        if Self.isIPAddress(text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text) {
            throw IdentityProblem("\"\(text)\" is an IP address, which browsers refuse as an RP ID: use a domain name (localhost on this machine)")
        }
        let problems = Self.domainNameProblems(text)
        guard problems.isEmpty else { throw IdentityProblem("\"\(text)\" is not a valid RP ID: " + problems.joined(separator: "; ")) }
        value = text
    }

    /// What keeps `name` from being a DNS name as an RP ID must be: lower-case LDH labels of 1 to 63 bytes that neither
    /// start nor end with a hyphen, at most 253 bytes in all, no trailing dot, two labels or more unless `localhost`.
    static func domainNameProblems(_ name: String) -> [String] {
        guard !name.isEmpty else { return ["it is empty"] }
        if name.contains(where: { "/:".contains($0) }) { return ["it is not a bare domain name (no scheme, port or path)"] }
        if !name.allSatisfy(\.isASCII) { return ["it has characters outside ASCII (use the punycode form, xn--...)"] }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false).dropLast(name.hasSuffix(".") ? 1 : 0)
        let ofTheName: [String?] = [
            name == name.lowercased() ? nil : "it has upper-case letters (RP IDs are lower case)",
            name.utf8.count <= 253 ? nil : "it is \(name.utf8.count) bytes long (at most 253)",
            name.hasSuffix(".") ? "it ends with a dot" : nil,
            labels.contains(where: \.isEmpty) ? "it has an empty label (a leading dot or two dots in a row)" : nil,
        ]
        let ofItsLabels = labels.filter { !$0.isEmpty }.flatMap { label -> [String?] in [
            label.utf8.count <= 63 ? nil : "the label \"\(label.prefix(20))...\" is \(label.utf8.count) bytes long (at most 63)",
            label.first { !$0.isLDH }.map { "the label \"\(label)\" has \"\($0)\" (only letters, digits and hyphens)" },
            label.hasPrefix("-") || label.hasSuffix("-") ? "the label \"\(label)\" starts or ends with a hyphen" : nil,
        ] }
        let singleLabel = labels.count < 2 && name != "localhost"
        return (ofTheName + ofItsLabels).compactMap { $0 }
            + (singleLabel ? ["it is a single label (an RP ID is a domain such as example.com, or localhost)"] : [])
    }

    /// Whether `text` is an IPv4 or IPv6 address in its usual text form (inet_pton accepts it), which is never an RP ID.
    public static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}
