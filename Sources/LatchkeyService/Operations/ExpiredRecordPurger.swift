import Foundation
import LatchkeyStore
import Logging
import ServiceLifecycle

/// Deletes expired challenges and sessions once a minute, and security events older than the
/// retention (with delivered webhook deliveries after a week), then records how many live ones
/// remain (the `latchkey_pending_challenges` and `latchkey_live_sessions` gauges).
package struct ExpiredRecordPurger: Service {
    package let store: any LatchkeyStore
    package let metrics: LatchkeyMetrics
    package let logger: Logger
    package var interval: Duration = .seconds(60)
    /// How long security events are kept.
    package var eventRetention: TimeInterval = 365 * 86_400

    package init(store: any LatchkeyStore, metrics: LatchkeyMetrics, logger: Logger, interval: Duration = .seconds(60), eventRetention: TimeInterval = 365 * 86_400) {
        self.store = store
        self.metrics = metrics
        self.logger = logger
        self.interval = interval
        self.eventRetention = eventRetention
    }
    /// How long delivered webhook deliveries are kept, to be listed.
    package static let deliveredRetention: TimeInterval = 7 * 86_400

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let now = Date()
                    try await store.purgeExpired(now: now)
                    try await store.purgeSecurityEvents(
                        eventsBefore: now.addingTimeInterval(-eventRetention),
                        deliveriesBefore: now.addingTimeInterval(-min(Self.deliveredRetention, eventRetention)))
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

/// What ServiceLifecycle logs when it starts and stops the purger.
extension ExpiredRecordPurger: CustomStringConvertible {
    package var description: String { "ExpiredRecordPurger(every \(interval))" }
}
