import LatchkeyService
import Logging
import NIOCore
import NIOPosix

/// What one listener serves: its routes, and the ``Responder`` that runs the steps around them.
public struct Site: Sendable {
    /// Every route, in the order added.
    public let routes: [Route]
    let responder: Responder

    /// A listener serving this site on `host`:`port` (0 for any free port), as a service.
    func listener(
        host: String, port: Int, eventLoops: any EventLoopGroup, requestTimeout: TimeAmount, connectionLimit: Int, metrics: LatchkeyMetrics,
        logger: Logger, onListening: (@Sendable (SocketAddress) -> Void)? = nil
    ) -> HTTPListener {
        HTTPListener(
            host: host, port: port, responder: .site(responder), eventLoops: eventLoops, requestTimeout: requestTimeout,
            connectionLimit: connectionLimit, metrics: metrics, logger: logger, onListening: onListening)
    }

    /// Serves this site on a free loopback port while `body` runs with its address: for tests and tools that
    /// drive the server in process over a real socket.
    public func serve<Value: Sendable>(
        logger: Logger, requestTimeout: TimeAmount = .seconds(10), _ body: @Sendable (SocketAddress) async throws -> Value
    ) async throws -> Value {
        let (addresses, continuation) = AsyncStream.makeStream(of: SocketAddress.self)
        let listener = listener(
            host: "127.0.0.1", port: 0, eventLoops: MultiThreadedEventLoopGroup.singleton, requestTimeout: requestTimeout,
            connectionLimit: 256, metrics: LatchkeyMetrics(), logger: logger, onListening: { continuation.yield($0) })
        return try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask {
                defer { continuation.finish() }
                try await listener.run()
                return nil
            }
            var iterator = addresses.makeAsyncIterator()
            guard let address = await iterator.next() else {
                _ = try await group.next()  // The listener's error: it could not bind.
                throw CancellationError()
            }
            let value = try await body(address)
            group.cancelAll()
            while let result = try await group.next() { if result != nil { break } }
            return value
        }
    }
}
