import Foundation

/// The address a request is counted against for rate limits and challenge caps: the peer, or,
/// when the peer is a trusted proxy, the client that proxy (and any trusted proxies before it)
/// saw, read from `X-Forwarded-For`. IPv6 clients are counted by their /64 network, the block
/// one subscriber usually gets, so that rotating through it buys nothing.
package struct ClientAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address in canonical text (`203.0.113.7`, `2001:db8:1:2::/64`), or `unknown`.
    package let key: String
    package var description: String { key }

    /// The client when nothing better is known (no peer address, as in route tests).
    package static let unknown = ClientAddress(key: "unknown")

    /// The client counted under `key`, as a store that counts limits names it.
    package init(key: String) {
        self.key = key
    }

    /// Resolves requests' client addresses with one set of trusted proxies.
    package struct Resolver: Sendable {
        /// The trusted proxies' addresses, as 4 or 16 bytes.
        private let trustedProxies: Set<[UInt8]>

        /// `trustedProxies` are IP addresses in text; ones that are not are ignored (the
        /// configuration refuses them before this is made).
        package init(trustedProxies: [String]) {
            self.trustedProxies = Set(trustedProxies.compactMap(IPAddressBytes.parse))
        }

        /// The client of a request from `peer` (an IP address in text) carrying `forwardedFor`
        /// (every `X-Forwarded-For` field, in order). Behind trusted proxies, the right-most
        /// address that is not itself a trusted proxy: each proxy appends the peer it saw, so
        /// only that part of the header cannot be forged by the client.
        package func client(peer: String?, forwardedFor: [String]) -> ClientAddress {
            guard let peer, let peerBytes = IPAddressBytes.parse(peer) else { return .unknown }
            var client = peerBytes
            if trustedProxies.contains(peerBytes) {
                let hops = forwardedFor.flatMap { $0.split(separator: ",") }
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                for hop in hops.reversed() {
                    // A hop that is not an address means a proxy misbehaves: count the last one known.
                    guard let bytes = IPAddressBytes.parse(hop) else { break }
                    client = bytes
                    if !trustedProxies.contains(bytes) { break }
                }
            }
            return ClientAddress(key: IPAddressBytes.countingKey(client))
        }
    }
}

/// IP addresses as bytes, through the C library's parser and printer.
package enum IPAddressBytes {
    /// 4 bytes for IPv4, 16 for IPv6 (an IPv4-mapped IPv6 address becomes its 4 IPv4 bytes), or
    /// nil when `text` is not an address.
    package static func parse(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return Array(bytes[12...])
        }
        return bytes
    }

    /// An IPv4 address as it is; an IPv6 address as its /64 network.
    package static func countingKey(_ bytes: [UInt8]) -> String {
        guard bytes.count == 16 else { return format(bytes) }
        return format(Array(bytes[0..<8]) + [UInt8](repeating: 0, count: 8)) + "/64"
    }

    /// Canonical text of 4 or 16 address bytes.
    package static func format(_ bytes: [UInt8]) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let printed = bytes.withUnsafeBytes { address in
            inet_ntop(family, address.baseAddress, &text, socklen_t(text.count))
        }
        guard printed != nil else { return "unknown" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
