import NIOCore
import NIOHTTP1

/// A reply: status, headers and the whole body, written in one go. `Content-Length` is set when it is written.
public struct Response: Sendable {
    public var status: HTTPResponseStatus
    public var headers: HTTPHeaders
    public var body: ByteBuffer

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
