import Foundation
import LatchkeyStore
import Logging
import ServiceLifecycle

/// Deletes expired challenges and sessions once a minute, then records how many live ones remain
/// (the `latchkey_pending_challenges` and `latchkey_live_sessions` gauges).
struct ExpiredRecordPurger: Service {
    let store: any LatchkeyStore
    let metrics: LatchkeyMetrics
    let logger: Logger
    var interval: Duration = .seconds(60)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await store.purgeExpired(now: Date())
                    metrics.recordLiveRecords(try await store.liveRecordCounts(now: Date()))
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
