import NIOCore
import NIOHTTP1

/// A reply: status, headers and the whole body, written in one go. `Content-Length` is set when it is written. A reply
/// too large to hold (an export) has a ``BodyStream`` instead, written piece by piece after the head.
public struct Response: Sendable {
    public var status: HTTPResponseStatus
    public var headers: HTTPHeaders
    public var body: ByteBuffer
    /// When set, the body: sent chunked (`Transfer-Encoding: chunked`) as it is made, and `body` is not sent.
    var bodyStream: BodyStream?

    /// A body made while it is sent. `produce` calls `write` with each piece; `write` returns once the connection
    /// took it, so a slow reader slows the producer and memory holds one piece. When `produce` throws after the head
    /// went, the connection closes without the last chunk, so the client sees a cut reply, never a whole-looking one.
    struct BodyStream: Sendable {
        let produce: @Sendable (_ write: @escaping @Sendable (ByteBuffer) async throws -> Void) async throws -> Void
    }

    public init(status: HTTPResponseStatus, headers: HTTPHeaders = [:], body: ByteBuffer = ByteBuffer()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Adds `cookie` as a `Set-Cookie` header.
    mutating func setCookie(_ cookie: Cookie) {
        headers.append(.setCookie, cookie.description)
    }
}
