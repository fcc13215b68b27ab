import HTTPTypes
import LatchkeyService
import NIOHTTP1
import WebAuthn

/// Gives every request an ID that its log lines carry (`requestID`) and its reply returns in
/// `X-Request-ID`, so one request can be followed through the logs. The ID a trusted proxy sent is
/// kept, so the proxy's logs and ours agree; from anyone else, or when malformed, a new one is made.
struct RequestIDs: Sendable {
    static let header = HTTPField.Name(known: "X-Request-ID")
    /// Peers whose `X-Request-ID` is kept (exact IP addresses).
    let trustedProxies: Set<String>

    /// The ID of `request`, from the peer at `peerAddress`.
    func id(for request: Request, peerAddress: @autoclosure () -> String?) -> String {
        acceptedID(request, peerAddress: peerAddress) ?? Self.newID()
    }

    /// The proxy's ID when the peer is a trusted proxy and the ID is 1-64 characters of
    /// letters, digits, `-`, `_`, `.` (nothing that could forge a log line).
    private func acceptedID(_ request: Request, peerAddress: () -> String?) -> String? {
        // The header first: most requests carry none, and then the peer's address is never formatted.
        guard let id = request.headers[Self.header], !trustedProxies.isEmpty, let peer = peerAddress(), trustedProxies.contains(peer)
        else { return nil }
        guard (1...64).contains(id.utf8.count),
              id.utf8.allSatisfy({ $0.isASCIILetterOrDigit || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") })
        else { return nil }
        return id
    }

    /// 16 random bytes in lowercase hexadecimal.
    static func newID() -> String {
        Hex.lowercase((try? SecureRandom.bytes(count: 16)) ?? [])
    }
}

extension UInt8 {
    fileprivate var isASCIILetterOrDigit: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
