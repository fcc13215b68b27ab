import Foundation
import LatchkeyService
import NIOCore
import Synchronization

/// Keeps a listener to its connection limit by closing the connection that has been idle longest
/// (no request in progress: kept alive, or sending nothing, or a slow partial request) when a
/// new one arrives, and stops accepting only while every connection is busy. So a flood of idle
/// connections cannot keep a load balancer's health check, or anyone else, out: each newcomer
/// takes the place of the stalest idle connection. ``ConnectionLimitsHandler`` says when each
/// connection turns idle or busy; ``Handler``, on the listening channel, registers new ones.
final class ConnectionShedder: Sendable {
    private struct Entry {
        let channel: any Channel
        /// Since when it has had no request in progress; nil while it has one.
        var idleSince: NIODeadline?
    }

    /// Connections held open at most.
    let limit: Int
    private let connections = Mutex<[ObjectIdentifier: Entry]>([:])
    /// How often a listener that found every connection busy looks again.
    static let recheck = TimeAmount.milliseconds(100)

    init(limit: Int) {
        self.limit = limit
    }

    /// Registers a new connection; when that puts the listener over its limit, closes the one idle
    /// longest (never the new one).
    func opened(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let evicted = connections.withLock { connections -> (any Channel)? in
            connections[id] = Entry(channel: channel, idleSince: .now())
            guard connections.count > limit else { return nil }
            let stalest = connections.lazy.filter { $0.key != id }.compactMap { key, entry in entry.idleSince.map { (key, $0) } }
                .min { $0.1 < $1.1 }
            guard let stalest else { return nil }
            return connections.removeValue(forKey: stalest.0)?.channel
        }
        evicted?.close(promise: nil)
    }

    /// Closes the connection idle longest, freeing its descriptor; false when none is idle.
    func closeStalestIdle() -> Bool {
        let evicted = connections.withLock { connections -> (any Channel)? in
            let stalest = connections.compactMap { key, entry in entry.idleSince.map { (key, $0) } }.min { $0.1 < $1.1 }
            return stalest.flatMap { connections.removeValue(forKey: $0.0)?.channel }
        }
        evicted?.close(promise: nil)
        return evicted != nil
    }

    func closed(_ channel: any Channel) {
        _ = connections.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Marks a connection idle (waiting for a request) or busy (reading or answering one).
    func setIdle(_ channel: any Channel, _ idle: Bool) {
        connections.withLock { connections in
            let id = ObjectIdentifier(channel)
            guard connections[id] != nil else { return }
            if idle {
                if connections[id]?.idleSince == nil { connections[id]?.idleSince = .now() }
            } else {
                connections[id]?.idleSince = nil
            }
        }
    }

    /// Whether one more connection may be accepted: under the limit, or an idle one can make room.
    var hasRoom: Bool {
        connections.withLock { connections in
            connections.count < limit || connections.values.contains { $0.idleSince != nil }
        }
    }

    /// On the listening channel: registers each accepted connection and holds off accepting while
    /// the listener is full of busy connections.
    final class Handler: ChannelDuplexHandler, Sendable {
        typealias InboundIn = any Channel
        typealias InboundOut = any Channel
        typealias OutboundIn = Never
        typealias OutboundOut = Never

        let shedder: ConnectionShedder

        init(shedder: ConnectionShedder) {
            self.shedder = shedder
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let channel = unwrapInboundIn(data)
            shedder.opened(channel)
            channel.closeFuture.whenComplete { [shedder] _ in shedder.closed(channel) }
            context.fireChannelRead(data)
        }

        func read(context: ChannelHandlerContext) {
            guard shedder.hasRoom else {
                let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                context.eventLoop.scheduleTask(in: ConnectionShedder.recheck) {
                    let (handler, context) = loopBound.value
                    handler.read(context: context)
                }
                return
            }
            context.read()
        }
    }
}
