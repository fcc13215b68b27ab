import HTTPTypes
import Hummingbird
import WebAuthn

/// Gives every request an ID that its log lines carry (`requestID`) and its reply returns in
/// `X-Request-ID`, so one request can be followed through the logs. The ID a trusted proxy sent is
/// kept, so the proxy's logs and ours agree; from anyone else, or when malformed, a new one is made.
struct RequestIDMiddleware: RouterMiddleware {
    typealias Context = LatchkeyRequestContext
    static let header = HTTPField.Name("X-Request-ID")!
    /// Peers whose `X-Request-ID` is kept (exact IP addresses).
    let trustedProxies: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let id = acceptedID(request, from: context.peerAddress) ?? Self.newID()
        context.requestID = id
        context.logger[metadataKey: "requestID"] = .string(id)
        var response = try await next(request, context)
        response.headers[Self.header] = id
        return response
    }

    /// The proxy's ID when the peer is a trusted proxy and the ID is 1-64 characters of
    /// letters, digits, `-`, `_`, `.` (nothing that could forge a log line).
    private func acceptedID(_ request: Request, from peer: String?) -> String? {
        guard let peer, trustedProxies.contains(peer), let id = request.headers[Self.header] else { return nil }
        guard (1...64).contains(id.utf8.count),
              id.utf8.allSatisfy({ $0.isASCIILetterOrDigit || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") })
        else { return nil }
        return id
    }

    /// 16 random bytes in lowercase hexadecimal.
    static func newID() -> String {
        let digits = Array("0123456789abcdef".utf8)
        let bytes = (try? SecureRandom.bytes(count: 16)) ?? []
        var hex: [UInt8] = []
        hex.reserveCapacity(32)
        for byte in bytes {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}

extension UInt8 {
    fileprivate var isASCIILetterOrDigit: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
