import Logging
import ServiceLifecycle

/// Logs when the server begins to stop (SIGTERM or SIGINT: it stops accepting, finishes the requests it has begun,
/// then closes the store); `serve` logs "stopped" once it has. Before, a stop left nothing in the log.
struct ShutdownNotice: Service {
    let logger: Logger

    func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            return  // Cancelled: the server is stopping because something else ended, which logs itself.
        }
        logger.notice("stopping: a stop signal came (SIGTERM or SIGINT); finishing the requests in flight")
    }
}
