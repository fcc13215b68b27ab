import Foundation
import LatchkeyService
import Logging
import NIOCore
import Synchronization

/// Pauses accepting on a listening socket while the process is out of file descriptors (or the
/// system out of files, buffers or memory), instead of spinning.
///
/// Why it is needed beside NIO's own `AcceptBackoffHandler`: that handler delays the *next*
/// `read()`, but a failed `accept()` leaves the listening channel's read pending, so the socket
/// stays registered for readability and the level-triggered poll wakes the event loop again at
/// once, with the backlog still full: one core spent retrying `accept()` (measured before this
/// handler: 100 % of a core with `ulimit -n 64` and 200 waiting connections). Turning `autoRead`
/// off unregisters the socket; it is turned on again after ``pause``, and the next `accept()`
/// either succeeds or pauses again. Connections already accepted are served all along. When the
/// listener has an idle connection, the one idle longest is closed to free a descriptor and the
/// pause is only ``shortPause``, so a flood of idle connections cannot keep newcomers out.
final class AcceptBackoff: ChannelInboundHandler, Sendable {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    /// How long accepting stops after a failure for lack of resources.
    static let pause = TimeAmount.seconds(1)
    /// How long it stops when an idle connection was closed to make room.
    static let shortPause = TimeAmount.milliseconds(10)
    /// At most one log line per this interval, with the number of pauses since the last one.
    static let logInterval: TimeInterval = 60

    private let logger: Logger
    private let metrics: LatchkeyMetrics
    private let shedder: ConnectionShedder?
    private let state = Mutex<(paused: Bool, lastLog: Date?, unlogged: Int)>((false, nil, 0))

    init(logger: Logger, metrics: LatchkeyMetrics, shedder: ConnectionShedder? = nil) {
        self.logger = logger
        self.metrics = metrics
        self.shedder = shedder
    }

    /// The `accept()` errors that pass once descriptors or memory are freed.
    static func isResourceShortage(_ error: any Error) -> Bool {
        guard let error = error as? IOError else { return false }
        return [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errnoCode)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if Self.isResourceShortage(error) { pauseAccepting(context.channel, error: error) }
        context.fireErrorCaught(error)
    }

    private func pauseAccepting(_ channel: any Channel, error: any Error) {
        let now = Date()
        let (start, logLine) = state.withLock { state -> (Bool, Int?) in
            guard !state.paused else { return (false, nil) }
            state.paused = true
            state.unlogged += 1
            guard state.lastLog.map({ now.timeIntervalSince($0) >= Self.logInterval }) ?? true else { return (true, nil) }
            defer { (state.lastLog, state.unlogged) = (now, 0) }
            return (true, state.unlogged)
        }
        guard start else { return }
        metrics.recordAcceptPause()
        let shed = shedder?.closeStalestIdle() == true
        let pause = shed ? Self.shortPause : Self.pause
        if let pauses = logLine {
            logger.warning("cannot accept connections: out of file descriptors or memory; pausing accepts", metadata: [
                "error": "\(error)", "pauses": "\(pauses)", "pause": "\(pause)", "closedIdleConnection": "\(shed)",
            ])
        }
        channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in
            channel.eventLoop.scheduleTask(in: pause) { [self] in
                state.withLock { $0.paused = false }
                channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in }
            }
        }
    }
}

/// How many connections a listener may hold open, from the process's file descriptor limit.
enum DescriptorBudget {
    /// The fewest descriptors the server starts with: the reserve and a few connections (64 with SQLite and no other
    /// listener). Below it the store or a listener failed to open with a bare "Too many open files" (a limit under
    /// about 28 did), or the server ran with room for almost no connection.
    static func minimum(otherConnections: Int) -> Int { reserve(otherConnections: otherConnections) + 16 }

    /// Raises the limit (``raiseLimit()``) and says why the server cannot start when it is still below ``minimum(otherConnections:)``.
    static func startupProblem(otherConnections: Int) -> String? {
        let limit = raiseLimit()
        let needed = minimum(otherConnections: otherConnections)
        guard limit < needed else { return nil }
        return "the open-file limit (ulimit -n) is \(limit), and Latchkey needs at least \(needed) descriptors to start "
            + "with this configuration: raise it (ulimit -n, or LimitNOFILE= under systemd)"
    }

    /// Descriptors kept for everything but the main listener's connections: the store's files, the
    /// listeners, the event loops, files the server reads, and `otherConnections` (the PostgreSQL
    /// pool, the admin and metrics listeners' connections, webhook requests).
    static func reserve(otherConnections: Int) -> Int { 48 + otherConnections }

    /// Raises the soft limit on open files to the hard limit (as Go's runtime does), and returns
    /// the soft limit then in force.
    static func raiseLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur > rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }

    /// The connections the main listener may hold: `maxConnections`, or fewer when the descriptor
    /// limit leaves less room (never under 8), with the warning to log when it does.
    static func maximumConnections(configured: Int, descriptorLimit: Int, otherConnections: Int) -> (Int, warning: String?) {
        let needed = configured + reserve(otherConnections: otherConnections)
        guard descriptorLimit < needed else { return (configured, nil) }
        let room = max(descriptorLimit - reserve(otherConnections: otherConnections), 8)
        return (room, "the open-file limit (ulimit -n) is \(descriptorLimit), below the \(needed) that maxConnections \(configured) needs; at most \(room) connections will be accepted: raise the limit (LimitNOFILE= under systemd) or lower maxConnections")
    }
}
