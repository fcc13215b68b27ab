import HTTPTypes
import LatchkeyService
import Logging
import NIOCore
import NIOHTTP1

/// Limits on each HTTP/1 connection, below the router:
/// - **A deadline for every request.** From the moment a connection waits for a request (when it
///   opens, or when the previous reply is sent) the whole request, head and body, must arrive
///   within `requestTimeout`, or the connection is closed. A client that sends one byte a second
///   (slow loris) is cut off, whatever the idle timeout; so is a kept-alive connection left unused.
///   While the server works on a request it has read, no deadline runs.
/// - **Clean answers to requests the parser refuses**: headers over ``HTTPLimits`` get 431, any
///   other malformed request 400, each with the JSON failure body, then the connection closes.
/// - **Closing after a reply that says `Connection: close`** (such as 413, whose unread body is not
///   worth reading): the server stops sending, and the deadline ends the reading.
/// - **A body in too many pieces** (more than ``HTTPLimits/maximumBodyParts`` chunks, such as
///   60,000 chunked bytes of one byte each) closes the connection: each piece costs the server more
///   than its bytes, and the body limit counts only the bytes.
/// - **Telling the listener's ``ConnectionShedder``** when the connection turns idle or busy, so
///   that a full listener makes room by closing the connection idle longest.
final class ConnectionLimitsHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let requestTimeout: TimeAmount
    private let logger: Logger
    private let shedder: ConnectionShedder?

    /// Requests whose head arrived and whose reply is not sent yet.
    private var requestsInProgress = 0
    /// Whether a request's head arrived and its end did not.
    private var isReadingRequest = false
    /// The pieces of the body being read so far.
    private var bodyParts = 0
    /// Whether the reply being written says `Connection: close`.
    private var closeAfterReply = false
    /// When the running deadline passes; `nil` while none runs.
    private var deadline: NIODeadline?
    /// The timer that checks the deadline; at most one per connection.
    private var timer: Scheduled<Void>?
    /// What the shedder was last told, so that it is told only of changes.
    private var reportedIdle: Bool?

    init(requestTimeout: TimeAmount, logger: Logger, shedder: ConnectionShedder? = nil) {
        self.requestTimeout = requestTimeout
        self.logger = logger
        self.shedder = shedder
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { updateDeadline(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
    }

    func channelActive(context: ChannelHandlerContext) {
        updateDeadline(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            requestsInProgress += 1
            isReadingRequest = true
            bodyParts = 0
        case .body:
            bodyParts += 1
            guard bodyParts <= HTTPLimits.maximumBodyParts else {
                if bodyParts == HTTPLimits.maximumBodyParts + 1 {
                    logger.notice("closed a connection whose request body came in too many pieces", metadata: [
                        "limit": "\(HTTPLimits.maximumBodyParts)",
                    ])
                    context.close(promise: nil)
                }
                return
            }
        case .end:
            isReadingRequest = false
        }
        updateDeadline(context)
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.code < 200:
            context.write(data, promise: promise)
        case .head(let head):
            closeAfterReply = head.headers[canonicalForm: HTTPField.Name.connection.rawName].contains { $0.equalsIgnoringASCIICase("close") }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            requestsInProgress = max(0, requestsInProgress - 1)
            if closeAfterReply {
                closeAfterReply = false
                context.writeAndFlush(data, promise: promise)
                // Stop sending; the rest of the request is read (and dropped) until the deadline.
                context.close(mode: .output, promise: nil)
            } else {
                context.write(data, promise: promise)
            }
            updateDeadline(context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Only a connection with nothing in progress can be answered here; otherwise the
        // application's reply is under way and the error goes on to it.
        guard let parserError = error as? HTTPParserError, requestsInProgress == 0 else {
            context.fireErrorCaught(error)
            return
        }
        let (status, message): (HTTPResponseStatus, String) = parserError == .headerOverflow
            ? (.requestHeaderFieldsTooLarge,
               "request headers are over the limit of \(HTTPLimits.maximumHeaderBytes / 1024) KiB and \(HTTPLimits.maximumHeaderFields) fields")
            : (.badRequest, "malformed HTTP request")
        logger.debug("refused a malformed request", metadata: ["error": "\(parserError)"])
        // This reply is in progress now: a further error goes on to the application, which closes.
        requestsInProgress = 1
        let body = JSONResponse.body(FailureReply(errorMessage: message))
        let head = HTTPResponseHead(version: .http1_1, status: status, headers: [
            "Content-Type": JSONResponse.contentType, "Content-Length": String(body.readableBytes), "Connection": "close",
            "Cache-Control": "no-store",
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    /// A deadline runs while a request is being read or none is in progress: it starts when the
    /// connection waits for (part of) a request and stops while the server works on one. The
    /// timer is not re-armed per request: stopping only forgets the deadline, and a timer that
    /// fires early (its deadline stopped and started again since) waits for the current one.
    private func updateDeadline(_ context: ChannelHandlerContext) {
        let idle = requestsInProgress == 0 && !isReadingRequest
        if let shedder, idle != reportedIdle {
            shedder.setIdle(context.channel, idle)
            reportedIdle = idle
        }
        let shouldRun = isReadingRequest || requestsInProgress == 0
        if shouldRun, deadline == nil {
            let at = NIODeadline.now() + requestTimeout
            deadline = at
            if timer == nil { armTimer(context, at: at) }
        } else if !shouldRun {
            deadline = nil
        }
    }

    private func armTimer(_ context: ChannelHandlerContext, at time: NIODeadline) {
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: time) {
            self.timer = nil
            guard let deadline = self.deadline else { return }
            if deadline > .now() {
                self.armTimer(context, at: deadline)
                return
            }
            self.deadline = nil
            self.logger.debug("request deadline passed; closing the connection", metadata: [
                "reading": "\(self.isReadingRequest)",
            ])
            context.close(promise: nil)
        }
    }

    private func cancelTimer() {
        timer?.cancel()
        (timer, deadline) = (nil, nil)
    }
}
