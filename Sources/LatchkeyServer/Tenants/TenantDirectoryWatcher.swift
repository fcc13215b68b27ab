import Foundation
import LatchkeyConfiguration
import LatchkeyService
import LatchkeyStore
import Logging
import ServiceLifecycle
import Synchronization

/// Keeps the served tenants up to date with the store's directory, so a tenant made, changed or removed through
/// any instance on one store is served by every instance within ``interval`` (and by the one that changed it at
/// once, ``refresh()``). Each poll is one small read of the directory's revision; the tenants are read again only
/// when it moved.
final class TenantDirectoryWatcher: Service, Sendable {
    /// How often the revision is read.
    static let interval: Duration = .seconds(1)

    private let store: any LatchkeyStore
    private let server: LatchkeyConfiguration
    private let sites: TenantSites
    private let logger: Logger

    init(store: any LatchkeyStore, server: LatchkeyConfiguration, sites: TenantSites, logger: Logger) {
        (self.store, self.server, self.sites, self.logger) = (store, server, sites, logger)
    }

    func run() async throws {
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            do {
                try await Task.sleep(for: Self.interval)
            } catch {
                return
            }
            do {
                try await refreshIfChanged()
            } catch {
                // The store's own errors are logged where they happen; the next poll tries again.
                logger.debug("the tenant directory could not be read", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Reads the directory when its revision moved past the one served.
    func refreshIfChanged() async throws {
        guard try await store.tenantRevision() > sites.directory.revision else { return }
        try await refresh()
    }

    /// Reads the whole directory and serves it.
    func refresh() async throws {
        let directory = TenantDirectory(server: server, stored: try await store.tenantDirectory())
        let served = sites.directory
        guard directory.revision > served.revision else { return }
        for problem in directory.problems where !served.problems.contains(problem) { logger.warning("\(problem)") }
        sites.update(to: directory)
        logger.info("tenants changed", metadata: ["tenants": "\(directory.records.count)", "revision": "\(directory.revision)"])
    }
}

/// What the tenants API calls after a change, so this instance serves it at once: the watcher, once there is one
/// (the sites that hold the API are made before it).
final class TenantRefresher: Sendable {
    private let watcher = Mutex<TenantDirectoryWatcher?>(nil)

    func watch(with watcher: TenantDirectoryWatcher) {
        self.watcher.withLock { $0 = watcher }
    }

    /// Serves the store's directory now; a failure leaves it to the next poll.
    func refresh() async {
        guard let watcher = watcher.withLock({ $0 }) else { return }
        try? await watcher.refresh()
    }
}
