import LatchkeyConfiguration
import LatchkeyStore
import Logging
import ServiceLifecycle
import Synchronization

/// Sends the webhook deliveries of every tenant but the default one (whose dispatcher ``RelyingParties`` runs beside
/// it): one ``WebhookDispatcher`` per tenant that lists `webhookURLs`, over its scoped store and signed with
/// its own secret, started when the tenant appears in the served directory and stopped (its leases left to run
/// out) when it changes or goes. Deliveries a tenant's events wrote while no instance sent them wait in the outbox.
/// A tenant that drops every receiver keeps a dispatcher without any, which marks the deliveries left for them dead
/// (where an admin sees them) and then only waits.
package final class TenantWebhookDispatchers: Service, Sendable {
    private let relyingParties: RelyingParties
    private let makeTransport: @Sendable () -> any WebhookTransport
    private let logger: Logger
    /// The running dispatchers, by tenant, with the record each was started for.
    private let running = Mutex<[TenantID: (record: TenantRecord?, task: Task<Void, Never>)]>([:])
    /// The directory revision last followed (-1: none yet).
    private let followed = Mutex<Int64>(-1)

    /// Dispatchers for the tenants of `relyingParties`' directory, sending through transports `makeTransport` makes.
    package init(relyingParties: RelyingParties, makeTransport: @escaping @Sendable () -> any WebhookTransport, logger: Logger) {
        (self.relyingParties, self.makeTransport, self.logger) = (relyingParties, makeTransport, logger)
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                self.follow(self.relyingParties.directory)
                do { try await Task.sleep(for: TenantDirectoryWatcher.interval) } catch { break }
            }
        }
        let tasks = running.withLock { running in
            defer { running = [:] }
            return running.values.map(\.task)
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    /// Starts a dispatcher for each tenant with receivers that has none for its current record, and stops the rest.
    private func follow(_ directory: TenantDirectory) {
        let isNew = followed.withLock { followed in
            defer { followed = directory.revision }
            return followed != directory.revision
        }
        guard isNew else { return }
        var wanted: [TenantID: Tenant] = [:]
        // Only the settings that list webhook URLs are read over the server's configuration.
        for (id, record) in directory.records where Tenant.listsWebhookURLs(record) {
            do throws(ConfigurationError) {
                if let tenant = try directory.tenant(id), !tenant.configuration.webhookURLs.isEmpty { wanted[id] = tenant }
            } catch {
                logger.warning("the tenant's webhooks are not sent: its settings are no longer valid", metadata: ["tenant": "\(id)"])
            }
        }
        running.withLock { running in
            // A tenant that had receivers here and has none now: its pending deliveries are marked dead.
            for id in running.keys where wanted[id] == nil && directory.records[id] != nil {
                if let tenant = try? directory.tenant(id) { wanted[id] = tenant }
            }
            for (id, dispatcher) in running where wanted[id]?.record != dispatcher.record {
                dispatcher.task.cancel()
                running[id] = nil
            }
            for (id, tenant) in wanted where running[id] == nil {
                do {
                    running[id] = (tenant.record, try start(tenant))
                } catch {
                    logger.error("the tenant's webhooks cannot be sent", metadata: ["tenant": "\(id)", "error": "\(error)"])
                }
            }
        }
    }

    private func start(_ tenant: Tenant) throws -> Task<Void, Never> {
        let configuration = tenant.configuration
        var logger = logger
        logger[metadataKey: "tenant"] = "\(tenant.id)"
        let running = try WebhookDispatcher(
            store: RelyingParties.store(of: tenant, in: relyingParties.shared.store), configuration: configuration,
            metrics: relyingParties.shared.metrics, logger: logger, makeTransport: makeTransport)
        return Task {
            do { try await running.run() } catch { logger.warning("a tenant's webhook dispatcher stopped", metadata: ["error": "\(error)"]) }
        }
    }
}
