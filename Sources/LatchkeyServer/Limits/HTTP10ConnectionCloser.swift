import NIOCore
import NIOHTTP1

/// An HTTP/1.0 request without `Connection: keep-alive` ends its connection with its reply (RFC 9112
/// §9.3), but the version is gone once the request is converted to HTTP types. Placed ahead of that
/// conversion, this marks such a request `Connection: close`, which the server honours: the reply
/// goes out and the connection closes, instead of waiting `requestTimeout` for a request that an
/// HTTP/1.0 client (a health checker reading to the end) never sends.
final class HTTP10ConnectionCloser: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data), head.version.major == 1, head.version.minor == 0, !head.isKeepAlive else {
            context.fireChannelRead(data)
            return
        }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}
