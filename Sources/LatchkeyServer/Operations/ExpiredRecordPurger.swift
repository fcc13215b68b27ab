import Foundation
import LatchkeyStore
import Logging
import ServiceLifecycle

/// Deletes expired challenges and sessions once a minute.
struct ExpiredRecordPurger: Service {
    let store: any LatchkeyStore
    let logger: Logger
    var interval: Duration = .seconds(60)

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await store.purgeExpired(now: Date())
                } catch {
                    logger.warning("purging expired records failed", metadata: ["error": "\(error)"])
                }
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return  // shutting down
                }
            }
        }
    }
}
