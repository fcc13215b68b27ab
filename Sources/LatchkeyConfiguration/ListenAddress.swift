/// Where a second listener (`metricsAddress`, `adminAddress`) listens: `HOST:PORT`, or `[IPv6]:PORT`.
public struct ListenAddress: Sendable, Equatable {
    /// The host, without the brackets of an IPv6 address.
    public let host: String
    public let port: Int
    /// The address as it was written.
    public let text: String

    /// `HOST:PORT` (`[IPv6]:PORT`) split at its last colon, or nil when it is not one (no host, or
    /// no port from 1 to 65535).
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), colon != text.startIndex, let port = Int(text[text.index(after: colon)...]),
              (1...65_535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        (self.host, self.port, self.text) = (host, port, text)
    }
}
