import Foundation
import Logging
import ServiceLifecycle

/// Keeps the served tenants up to date with the store's directory, so a tenant made, changed or removed through
/// any instance on one store is served by every instance within ``interval`` (and by the one that changed it at
/// once: the tenants API calls ``RelyingParties/refresh(logger:)``). Each poll is one small read of the directory's
/// revision; the tenants are read again only when it moved.
package struct TenantDirectoryWatcher: Service {
    /// How often the revision is read.
    package static let interval: Duration = .seconds(1)

    package let relyingParties: RelyingParties
    package let logger: Logger

    package init(relyingParties: RelyingParties, logger: Logger) {
        (self.relyingParties, self.logger) = (relyingParties, logger)
    }

    package func run() async throws {
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            do {
                try await Task.sleep(for: Self.interval)
            } catch {
                return
            }
            do {
                try await relyingParties.refreshIfChanged(logger: logger)
            } catch {
                // The store's own errors are logged where they happen; the next poll tries again.
                logger.debug("the tenant directory could not be read", metadata: ["error": "\(error)"])
            }
        }
    }
}
