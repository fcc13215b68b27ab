import LatchkeyService
import NIOCore
import NIOHTTP1

/// A request as the routes read it: the head SwiftNIO's parser produced, its target split once into
/// path and query, and the whole body, collected within ``HTTPLimits/maximumBodyBytes`` before any
/// route runs.
public struct Request: Sendable {
    public let head: HTTPRequestHead
    /// The body, whole; empty when there was none or it was over the limit.
    public let body: ByteBuffer
    /// Whether the body was over the limit: it was not read, and the connection closes after the reply.
    public let bodyIsOverLimit: Bool
    /// The path and the query, as sent.
    public let uri: RequestURI
    /// The rate limit's decision, when it was made on the head, before the body was read: kept, never made twice.
    package var rateLimitDecision: TokenBuckets.Decision?

    public init(head: HTTPRequestHead, body: ByteBuffer, bodyIsOverLimit: Bool = false) {
        self.head = head
        self.body = body
        self.bodyIsOverLimit = bodyIsOverLimit
        uri = RequestURI(head.uri)
    }

    public var method: HTTPMethod { head.method }
    public var headers: HTTPHeaders { head.headers }
}

/// A request target split into its path (still percent-encoded) and its query.
public struct RequestURI: Sendable {
    /// The path, as sent: percent-encoded, without the query.
    public let path: String
    /// What follows the first `?`, when there is one.
    public let query: Substring?

    init(_ target: String) {
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            query = target[target.index(after: mark)...]
        } else {
            path = target
            query = nil
        }
    }

    /// The query's parameters (``Parameters/query(_:)``), parsed on each call.
    public var queryParameters: Parameters {
        query.map(Parameters.query) ?? Parameters()
    }
}

extension Request {
    /// Whether the method asks for a change (POST, PUT, PATCH, DELETE): what the cross-site guards look at; GET, HEAD
    /// and OPTIONS read.
    var changesState: Bool {
        switch method {
        case .POST, .PUT, .PATCH, .DELETE: true
        default: false
        }
    }
}
