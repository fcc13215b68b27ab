import Foundation
import LatchkeyService
import NIOCore
import NIOHTTP1

/// Marks `Connection: close` on the requests whose connection must end with their reply, which the
/// server then honours. Placed ahead of the conversion to HTTP types, which loses what it looks at.
/// - **HTTP/1.0 without `Connection: keep-alive`** (RFC 9112 §9.3): otherwise the connection waits
///   `requestTimeout` for a request that an HTTP/1.0 client (a health checker reading to the end)
///   never sends.
/// - **CONNECT**: SwiftNIO sends the reply to CONNECT without a body or a length, so a client reading
///   it to the end of the connection would otherwise wait `requestTimeout` too.
/// - **A `close` option in any case or list** (`Connection: Close`, `keep-alive, close`): connection
///   options are case-insensitive (RFC 9110 §7.6.1), but only a lone lower-case `close` is honoured after
///   the conversion, so the header is rewritten as that.
final class ClosingRequestMarker: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data), Self.endsConnection(head) else {
            context.fireChannelRead(data)
            return
        }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    /// Whether the connection ends with the reply to `head`, though the HTTP-types side would not tell.
    static func endsConnection(_ head: HTTPRequestHead) -> Bool {
        if head.method == .CONNECT || (head.version.major == 1 && head.version.minor == 0 && !head.isKeepAlive) { return true }
        let options = head.headers["connection"]
        guard !options.isEmpty, options != ["close"], options != ["keep-alive"] else { return false }
        return options.contains { $0.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "close" } }
    }
}
