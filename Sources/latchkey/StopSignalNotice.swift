import Dispatch
import Foundation
import LatchkeyService
import Logging
import Synchronization

/// Logs the moment a stop signal comes (SIGTERM or SIGINT), before the server stops accepting and finishes the
/// requests it has begun; `serve` logs "stopped" once it has. Beside the service group's own handling of the same
/// signals (every dispatch source of a signal is told of it), so the line comes first, whatever the group then
/// stops in which order. Before, a stop left nothing in the log.
final class StopSignalNotice {
    private let sources: [any DispatchSourceSignal]

    /// Whether the line was logged: once, as a second signal while stopping changes nothing.
    private final class Told: Sendable {
        let value = Mutex(false)
        /// True the first time only.
        func first() -> Bool { value.withLock { told in defer { told = true }; return !told } }
    }

    init(logger: Logger) {
        let told = Told()
        sources = [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")].map { number, name in
            // Ignored as the service group ignores it, so that only the sources see it.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                guard told.first() else { return }
                logger.notice("stopping: \(name) came; no new connections, finishing the requests in flight")
            }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
