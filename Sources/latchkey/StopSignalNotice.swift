import Dispatch
import Foundation
import Logging

/// Logs the moment a stop signal comes (SIGTERM or SIGINT), before the server stops accepting and finishes the
/// requests it has begun; `serve` logs "stopped" once it has. Beside the service group's own handling of the same
/// signals (every dispatch source of a signal is told of it), so the line comes first, whatever the group then
/// stops in which order. Before, a stop left nothing in the log.
final class StopSignalNotice {
    private let sources: [any DispatchSourceSignal]

    init(logger: Logger) {
        sources = [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")].map { number, name in
            // Ignored as the service group ignores it, so that only the sources see it.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
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
