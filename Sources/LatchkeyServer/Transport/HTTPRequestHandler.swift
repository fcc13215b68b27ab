import HTTPTypes
import LatchkeyService
import Logging
import NIOCore
import NIOHTTP1

/// The last handler of a connection: collects each request's body within ``HTTPLimits/maximumBodyBytes``, has the
/// ``Responder`` answer it, and writes the reply in one flush. SwiftNIO's pipeline ahead of it parses, and holds
/// back a pipelined request until the reply before it is written, so one request at a time is in progress here.
///
/// - A body over the limit (by its `Content-Length`, or once more of it has come) is answered at once, without
///   waiting for the rest, which is dropped; the connection closes after the reply.
/// - The request's host is settled first (``RequestHost``): no `Host`, two, an invalid one or a bad absolute-form
///   target is answered 400, and the connection closes.
/// - A request its client's empty rate-limit bucket refuses is answered 429 on its head, its body unread (and
///   dropped as it comes, the connection going on, unless the client waits for `100 Continue`).
/// - `Expect: 100-continue` on HTTP/1.1 gets `100 Continue` when the body may be sent (HTTP/1.0 knows no
///   interim replies, RFC 9110 §10.1.1).
/// - A framing error SwiftNIO's parser finds after the head (a bad chunk) is answered 400 before the close.
/// - The connection ends with the reply when the request asks (`Connection: close`, in any case or list), speaks
///   HTTP/1.0 without keep-alive, or is CONNECT; and when the reply says `Connection: close`.
/// - HEAD gets GET's reply without its body.
final class HTTPRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        /// Waiting for a request's head.
        case idle
        /// Collecting a body.
        case reading(HTTPRequestHead, ByteBuffer)
        /// Answered (or being answered) before the body ended: the rest is dropped, and the connection closes.
        case discarding
        /// The reply is being made.
        case answering
    }

    private let responder: RequestDispatch
    private var state = State.idle
    /// The rate limit's decision for the request being read, made on its head.
    private var decision: TokenBuckets.Decision?

    init(responder: RequestDispatch) {
        self.responder = responder
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (unwrapInboundIn(data), state) {
        case (.head(let received), _):
            receive(received, context: context)
        case (.body(var part), .reading(let head, var body)):
            state = .answering  // Let `body` be the only reference while it grows.
            guard body.readableBytes + part.readableBytes <= HTTPLimits.maximumBodyBytes else {
                answerOverLimit(head, context: context)
                return
            }
            body.writeBuffer(&part)
            state = .reading(head, body)
        case (.end, .reading(let head, let body)):
            state = .answering
            answer(request(head, body: body), closes: Self.endsConnection(head), context: context)
        case (.end, .discarding):
            break
        case (.body, _), (.end, _):
            break
        }
    }

    /// A request's head: its host settled, its length and its rate limit checked, `100 Continue` sent when asked.
    private func receive(_ received: HTTPRequestHead, context: ChannelHandlerContext) {
        decision = nil
        let head: HTTPRequestHead
        switch RequestHost.settle(received) {
        case .success(let settled):
            head = settled
        case .failure(let refusal):
            refuse(received, refusal.message, context: context)
            return
        }
        if let length = head.headers[.contentLength].flatMap(Int.init), length > HTTPLimits.maximumBodyBytes {
            answerOverLimit(head, context: context)
            return
        }
        // The rate limit decides on the head where it can: a client whose bucket is empty is answered now, its
        // body unread (and no `100 Continue`). Its body, when it comes, is dropped and the connection goes on
        // (pipelined requests keep their replies); a client waiting for `100 Continue` sends none, so that
        // connection closes after the reply. The decision goes with the request, never made twice.
        decision = responder.rateLimitDecision(head, peer: context.channel.remoteAddress)
        if case .refused = decision {
            let awaitsContinue = Self.expectsContinue(head)
            state = awaitsContinue ? .discarding : .answering
            answer(request(head), closes: awaitsContinue || Self.endsConnection(head), context: context)
            return
        }
        if Self.expectsContinue(head) {
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .continue))), promise: nil)
        }
        state = .reading(head, context.channel.allocator.buffer(capacity: 0))
    }

    private func answerOverLimit(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        state = .discarding
        answer(request(head, bodyIsOverLimit: true), closes: true, context: context)
    }

    /// The request of `head` as the responder gets it, with the rate limit's decision made on its head.
    private func request(_ head: HTTPRequestHead, body: ByteBuffer = ByteBuffer(), bodyIsOverLimit: Bool = false) -> Request {
        var request = Request(head: head, body: body, bodyIsOverLimit: bodyIsOverLimit)
        request.rateLimitDecision = decision
        return request
    }

    /// Answers `head` 400 with `message` without reading its body or asking the responder; the connection closes.
    private func refuse(_ head: HTTPRequestHead, _ message: String, context: ChannelHandlerContext) {
        state = .discarding
        write(JSONResponse.failed(message, status: .badRequest), to: Request(head: head, body: ByteBuffer()), closes: true, context: context)
    }

    private func answer(_ request: Request, closes: Bool, context: ChannelHandlerContext) {
        switch responder.respond(to: request, peer: context.channel.remoteAddress, on: context.eventLoop) {
        case .ready(let response):
            write(response, to: request, closes: closes, context: context)
        case .pending(let future):
            future.assumeIsolated().whenComplete { result in
                switch result {
                case .success(let response): self.write(response, to: request, closes: closes, context: context)
                case .failure: context.close(promise: nil)  // The responder renders every error; this is not one.
                }
            }
        }
    }

    private func write(_ response: Response, to request: Request, closes requested: Bool, context: ChannelHandlerContext) {
        var headers = response.headers
        let closes = requested || headers[.connection].map({ Substring($0).equalsIgnoringASCIICase("close") }) == true
        let stream = request.method == .HEAD ? nil : response.bodyStream
        if stream != nil {
            headers.remove(name: "Content-Length")
            headers[.transferEncoding] = "chunked"
        } else if response.status != .noContent && response.status != .notModified {
            headers[.contentLength] = String(response.body.readableBytes)
        }
        if closes {
            headers[.connection] = "close"
        } else if request.head.version == .http1_0 {
            headers[.connection] = "keep-alive"
        }
        if case .discarding = state {} else { state = .idle }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: response.status, headers: headers))), promise: nil)
        if let stream {
            send(stream, closes: closes, context: context)
            return
        }
        if request.method != .HEAD, response.body.readableBytes > 0 {
            context.write(wrapOutboundOut(.body(.byteBuffer(response.body))), promise: nil)
        }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if closes {
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }

    /// Sends a streamed body after its head, in a task of its own: each piece written and flushed on the event loop,
    /// the producer waiting for it; then the end, or, when the producer fails, a close without it.
    private func send(_ stream: Response.BodyStream, closes: Bool, context: ChannelHandlerContext) {
        context.flush()
        let eventLoop = context.eventLoop
        let bound = NIOLoopBound(context, eventLoop: eventLoop)
        Task {
            do {
                try await stream.produce { piece in
                    try await eventLoop.flatSubmit {
                        bound.value.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.byteBuffer(piece))))
                    }.get()
                }
                try await eventLoop.flatSubmit {
                    let ended = bound.value.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)))
                    if closes { ended.assumeIsolated().whenComplete { _ in bound.value.close(promise: nil) } }
                    return ended
                }.get()
            } catch {
                eventLoop.execute { bound.value.close(promise: nil) }
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A parser error before any request was answered by ``ConnectionLimitsHandler``. One in a body being read (a
        // bad chunk) is answered here, as no reply has begun; any other error (a reset) ends the connection.
        if error is HTTPParserError, case .reading(let head, _) = state {
            refuse(head, "malformed HTTP request body", context: context)
            return
        }
        context.close(promise: nil)
    }

    /// Whether `head` waits for `100 Continue` before sending its body: `Expect: 100-continue` on HTTP/1.1 (HTTP/1.0
    /// knows no interim replies, RFC 9110 §10.1.1).
    static func expectsContinue(_ head: HTTPRequestHead) -> Bool {
        head.version.major == 1 && head.version.minor >= 1
            && head.headers[.expect].map({ Substring($0).trimmingOptionalWhitespace.equalsIgnoringASCIICase("100-continue") }) == true
    }

    /// Whether the connection ends with the reply to `head`: CONNECT (whose reply SwiftNIO sends without a body or
    /// a length, which a client could only read to the end of the connection), HTTP/1.0 without keep-alive
    /// (RFC 9112 §9.3), or a `close` option in any case or list (RFC 9110 §7.6.1).
    static func endsConnection(_ head: HTTPRequestHead) -> Bool {
        if head.method == .CONNECT || (head.version.major == 1 && head.version.minor == 0 && !head.isKeepAlive) { return true }
        // Each option of each field, trimmed.
        return head.headers[canonicalForm: HTTPField.Name.connection.rawName].contains { $0.equalsIgnoringASCIICase("close") }
    }
}
