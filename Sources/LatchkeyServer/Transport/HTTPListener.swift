import LatchkeyService
import Logging
import NIOCore
import NIOExtras
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// One listening socket that serves HTTP/1.1 through SwiftNIO's own pipeline (its parser, pipelining and
/// limits) and Latchkey's handlers, run as a service. Each connection runs ``ConnectionLimitsHandler`` and
/// ``HTTPRequestHandler``; the listening socket, ``AcceptBackoff`` and the ``ConnectionShedder``. On graceful
/// shutdown it stops accepting, lets every reply in progress finish, closes idle connections, and returns once
/// every connection has closed.
struct HTTPListener: Service {
    let host: String
    let port: Int
    let responder: RequestDispatch
    let eventLoops: any EventLoopGroup
    let requestTimeout: TimeAmount
    /// Connections held open at most (``ConnectionShedder``).
    let connectionLimit: Int
    let metrics: LatchkeyMetrics
    let logger: Logger
    /// Told the bound address once the socket listens (for port 0, the port chosen).
    var onListening: (@Sendable (SocketAddress) -> Void)?

    func run() async throws {
        let quiescing = ServerQuiescingHelper(group: eventLoops)
        let server = try await bind(quiescing: quiescing)
        if let address = server.localAddress {
            logger.info("listening", metadata: ["address": "\(host):\(address.port ?? port)"])
            onListening?(address)
        }
        let closed = server.eventLoop.makePromise(of: Void.self)
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await server.closeFuture.get()
                try await closed.futureResult.get()
            } onGracefulShutdown: {
                quiescing.initiateShutdown(promise: closed)
            }
        } onCancel: {
            server.close(promise: nil)
            closed.succeed(())
        }
    }

    private func bind(quiescing: ServerQuiescingHelper) async throws -> any Channel {
        let shedder = ConnectionShedder(limit: connectionLimit)
        let (responder, requestTimeout, logger, metrics) = (responder, requestTimeout, logger, metrics)
        let decoderLimits = {
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = HTTPLimits.maximumHeaderBytes
            limits.maxHeaderListSize = HTTPLimits.maximumHeaderBytes
            limits.maxHeaderFieldCount = HTTPLimits.maximumHeaderFields
            return limits
        }()
        return try await ServerBootstrap(group: eventLoops)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        quiescing.makeServerChannelHandler(channel: channel),
                        AcceptBackoff(logger: logger, metrics: metrics, shedder: shedder), ConnectionShedder.Handler(shedder: shedder),
                    ])
                }
            }
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.allowRemoteHalfClosure, value: false)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    // NIO parses and pipelines; its header checks on the way out keep a reply from carrying a line break.
                    try pipeline.configureHTTPServerPipeline(
                        withPipeliningAssistance: true, withErrorHandling: false, withOutboundHeaderValidation: true,
                        withEncoderConfiguration: .init(), withDecoderLimitConfiguration: decoderLimits)
                    try pipeline.addHandler(ConnectionLimitsHandler(requestTimeout: requestTimeout, logger: logger, shedder: shedder))
                    try pipeline.addHandler(HTTPRequestHandler(responder: responder))
                }
            }
            .bind(host: host, port: port)
            .get()
    }
}
