import Foundation
import LatchkeyConfiguration
import LatchkeyJSON
import LatchkeyStore
import Logging
import WebAuthn
import ServiceLifecycle

/// Sends the webhook outbox: claims due deliveries from the store under a lease, POSTs each with
/// its Standard Webhooks signature, and records the outcome, retrying failures with exponential
/// backoff and jitter until the delivery's retry window has passed, when it is dead.
///
/// Never lost: a delivery row is written in the transaction of its event and leaves the pending
/// state only when its receiver answered 2xx or its window passed (or the event's retention
/// ended). Never sent twice at once: a claim leases a delivery to one sender for ``lease``, three
/// times the longest attempt (``requestTimeout``: the reply's head must come within it, and its
/// body is not read), only unleased or expired deliveries are claimed, and an outcome is recorded
/// only by the lease's owner; instances' clocks are assumed to agree within the difference (NTP).
/// A sender that dies mid-attempt leaves its lease to run out; the delivery is then sent again,
/// with the same `webhook-id`, so receivers deduplicate.
///
/// Each receiver has its own sending loop, so one that is slow or unreachable delays only its own
/// deliveries. With no receivers configured it sends nothing: it marks dead what is still pending
/// for receivers configured before, as it would for one removed from the list, and stops polling
/// once the outbox is empty (no new deliveries are written without receivers).
package struct WebhookDispatcher: Service {
    package let store: any LatchkeyStore
    package let metrics: LatchkeyMetrics
    package let logger: Logger
    /// This process's name on its leases: host, process ID and a random part.
    package let owner: String
    /// The receivers configured now, by name: a delivery for one that is no longer listed is not
    /// sent (an operator who removes a receiver means it), but marked dead, where an admin can see it.
    package let receivers: [String: WebhookReceiver]
    /// What sends deliveries; nil without receivers.
    package let sender: Sender?
    /// Which receivers failed their last attempt, so that the log tells when one starts and stops failing.
    package let failing = ReceiverFailures()
    /// Whose deliveries `store` holds: the tenant its metrics are of.
    package var tenant: TenantID { store.tenant }

    /// Signs deliveries and POSTs them.
    package struct Sender {
        package let signer: WebhookSigner
        package let transport: any WebhookTransport
    }

    /// How long a claimed delivery is this sender's.
    package static let lease: TimeInterval = 30
    /// The longest one attempt may take, connecting included.
    package static let requestTimeout: Duration = .seconds(10)
    /// Deliveries to one receiver claimed and sent at once.
    package static let batchSize = 16
    /// How often the outbox is polled for a receiver when it had nothing due.
    package static let pollInterval: Duration = .seconds(1)
    /// How often it is polled for deliveries to receivers no longer configured.
    package static let unconfiguredPollInterval: Duration = .seconds(10)

    /// A dispatcher for `receivers`, sending through the transport `makeTransport` makes (only when there are
    /// receivers to send to, and a signer to sign for them).
    package init(
        store: any LatchkeyStore, signer: WebhookSigner?, receivers: [WebhookReceiver], metrics: LatchkeyMetrics, logger: Logger,
        makeTransport: () -> any WebhookTransport
    ) throws {
        self.store = store
        self.receivers = Dictionary(receivers.map { ($0.name, $0) }) { first, _ in first }
        self.metrics = metrics
        self.logger = logger
        owner = "\(ProcessInfo.processInfo.hostName)/\(getpid())/\(try SecurityEventRecorder.newID().dropFirst(4).prefix(8))"
        sender = receivers.isEmpty ? nil : signer.map { Sender(signer: $0, transport: makeTransport()) }
    }

    /// The dispatcher of `configuration`'s receivers, signed with its secret (no signer without receivers, whose
    /// secret may be empty), over `store`, the store of the tenant `configuration` is.
    package init(
        store: any LatchkeyStore, configuration: LatchkeyConfiguration, metrics: LatchkeyMetrics, logger: Logger,
        makeTransport: () -> any WebhookTransport
    ) throws {
        let signer = configuration.webhookURLs.isEmpty
            ? nil : try WebhookSigner(secret: configuration.webhookSecret, previous: configuration.webhookPreviousSecret)
        try self.init(
            store: store, signer: signer, receivers: configuration.webhookReceivers, metrics: metrics, logger: logger,
            makeTransport: makeTransport)
    }

    package func run() async throws {
        await renameDeliveriesStoredUnderURLs()
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                for (selection, interval) in lanes {
                    group.addTask { await drain(selection, pollingEvery: interval) }
                }
                await reportOutboxStatus()
                group.cancelAll()
            }
        }
        // Without receivers nothing more can become due: wait for the server to stop.
        if sender == nil { try? await gracefulShutdown() }
        try? await sender?.transport.shutdown()
    }

    /// What each sending loop claims, and how often it polls when nothing was due: one loop per
    /// receiver, so a slow or unreachable one holds up only its own deliveries, and one for the
    /// receivers no longer configured (whose deliveries only another instance's older list can add).
    package var lanes: [(selection: WebhookReceiverSelection, interval: Duration)] {
        guard sender != nil else { return [(.all, Self.pollInterval)] }
        let names = receivers.keys.sorted()
        return names.map { (.only($0), Self.pollInterval) } + [(.allBut(Set(names)), Self.unconfiguredPollInterval)]
    }

    /// Latchkey 0.8 and before stored each delivery under its receiver's whole URL, password included:
    /// the pending ones of a receiver still configured move to its name, where its sending loop
    /// finds them (through the pending deliveries' index; done and dead ones keep the URL until
    /// they are purged, and one an admin retries is sent to the receiver all the same).
    private func renameDeliveriesStoredUnderURLs() async {
        for receiver in receivers.values where receiver.url != receiver.name {
            do {
                let moved = try await store.renameWebhookReceiver(receiver.url, to: receiver.name)
                if moved > 0 {
                    logger.info("webhook deliveries stored under a receiver's URL now under its name", metadata: [
                        "receiver": "\(receiver.name)", "deliveries": "\(moved)",
                    ])
                }
            } catch {
                logger.warning("could not rename a webhook receiver's stored deliveries", metadata: [
                    "receiver": "\(receiver.name)", "error": "\(error)",
                ])
            }
        }
    }

    /// Claims and sends the due deliveries of the receivers `selection` names, a batch at a time, until cancelled.
    private func drain(_ selection: WebhookReceiverSelection, pollingEvery interval: Duration) async {
        while !Task.isCancelled {
            var claimed = 0
            do {
                claimed = try await sendDue(selection)
            } catch {
                logger.warning("webhook outbox unavailable", metadata: ["error": "\(error)"])
            }
            // Each user's deliveries are claimed one at a time, in order: after a batch, the next of each may be
            // due at once, so only an empty claim waits for the next poll.
            if claimed == 0 {
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
    }

    /// Puts the outbox's depth and age into the metrics every 10 seconds until cancelled; without
    /// receivers, returns once the outbox is empty, when there is nothing left to mark dead.
    private func reportOutboxStatus() async {
        while !Task.isCancelled {
            do {
                let status = try await store.webhookOutboxStatus()
                metrics.recordWebhookOutbox(status, tenant: tenant)
                if sender == nil, status.depth == 0 { return }
            } catch {
                logger.warning("webhook outbox unavailable", metadata: ["error": "\(error)"])
            }
            do { try await Task.sleep(for: .seconds(10)) } catch { return }
        }
    }

    /// Claims and sends one batch of deliveries to the receivers `selection` names; returns how many it claimed.
    private func sendDue(_ selection: WebhookReceiverSelection, now: Date = Date()) async throws -> Int {
        let due = try await store.claimWebhookDeliveries(
            owner: owner, now: now, leaseUntil: now.addingTimeInterval(Self.lease), limit: Self.batchSize, receivers: selection)
        await withTaskGroup(of: Void.self) { group in
            for (delivery, event) in due {
                group.addTask { await attempt(delivery, of: event) }
            }
        }
        return due.count
    }

    /// One attempt at one delivery, and its outcome recorded.
    private func attempt(_ delivery: WebhookDelivery, of event: SecurityEvent) async {
        let outcome = await outcome(of: delivery, for: event)
        // Shutting down: the attempt did not happen as far as the outbox knows; its lease runs out.
        guard !Task.isCancelled else { return }
        let now = Date()
        let receiver = ConfigurationRedaction.redactingURLPassword(delivery.receiver)
        switch outcome {
        case .delivered:
            metrics.recordWebhookAttempt("delivered", tenant: tenant)
            if failing.record(receiver, failed: false) == .recovered {
                logger.notice("webhook receiver accepts deliveries again", metadata: ["receiver": "\(receiver)"])
            }
        case .retry(let next, let error):
            metrics.recordWebhookAttempt("failed", tenant: tenant)
            // Every failed attempt at debug; at warning the first of a run of them (at most one a minute), not one per retry.
            let metadata: Logger.Metadata = [
                "receiver": "\(receiver)", "event": "\(event.id)", "attempts": "\(delivery.attempts + 1)", "error": "\(error)",
                "nextAttemptAt": "\(next.formatted(.iso8601))",
            ]
            if failing.record(receiver, failed: true) == .startedFailing {
                logger.warning("webhook receiver failing: its deliveries are retried with backoff", metadata: metadata)
            } else {
                logger.debug("webhook delivery attempt failed", metadata: metadata)
            }
        case .dead(let error):
            metrics.recordWebhookAttempt("dead", tenant: tenant)
            logger.error("webhook delivery dead: its retry window passed, or its receiver is no longer configured", metadata: [
                "event": "\(event.id)", "receiver": "\(receiver)", "error": "\(error)",
            ])
        }
        do {
            if try await !store.finishWebhookDelivery(id: delivery.id, owner: owner, outcome: outcome, now: now) {
                logger.warning("webhook delivery lease lost before its outcome was recorded", metadata: ["event": "\(event.id)"])
            }
        } catch {
            // The lease runs out and the delivery is sent again: at least once, never lost.
            logger.warning("could not record a webhook delivery's outcome", metadata: ["event": "\(event.id)", "error": "\(error)"])
        }
    }

    /// What becomes of one delivery: not sent (dead) when its receiver is no longer configured,
    /// else sent, and retried after a failure until its window has passed.
    private func outcome(of delivery: WebhookDelivery, for event: SecurityEvent) async -> WebhookAttemptOutcome {
        // By name: a delivery an earlier version stored under a receiver's whole URL (left by a failed
        // rename, or written meanwhile by an instance not yet upgraded) is that receiver's too.
        guard let receiver = receivers[LatchkeyConfiguration.webhookReceiverName(of: delivery.receiver)], let sender
        else { return .dead(error: Self.unconfiguredReceiver) }
        guard let failure = await send(event, to: receiver, with: sender) else { return .delivered }
        let now = Date()
        return now >= delivery.retryUntil
            ? .dead(error: failure)
            : .retry(at: now.addingTimeInterval(Self.backoff(afterAttempts: delivery.attempts + 1)), error: failure)
    }

    /// POSTs `event` to `receiver`; nil when it answered 2xx, else what went wrong (never a body).
    private func send(_ event: SecurityEvent, to receiver: WebhookReceiver, with sender: Sender) async -> String? {
        do {
            let body = try Self.encoder.encode(WebhookPayload(event))
            let timestamp = Int(Date().timeIntervalSince1970)
            var headers: [(name: String, value: String)] = []
            if let authorization = receiver.authorization { headers.append(("Authorization", authorization)) }
            headers += [
                ("Content-Type", "application/json"), ("User-Agent", "Latchkey/\(LatchkeyRelease.version)"), ("webhook-id", event.id),
                ("webhook-timestamp", String(timestamp)),
                ("webhook-signature", try sender.signer.signature(id: event.id, timestamp: timestamp, body: body)),
            ]
            return try await sender.transport.deliver(body, to: receiver.requestURL, headers: headers, timeout: Self.requestTimeout)
        } catch {
            return String("\(error)".prefix(300))
        }
    }

    /// One encoder for every body, keeping members in their declared order: a delivery sent again after a restart
    /// signs the same bytes.
    private static let encoder = OrderedJSONEncoder()

    /// Why a delivery was not sent: its receiver is no longer in `webhookURLs`.
    package static let unconfiguredReceiver = "not sent: the receiver is no longer configured (webhookURLs)"

    /// Seconds before the next attempt after `attempts` failed ones: 5 s doubling up to an hour,
    /// each spread by ±20 % so that receivers coming back are not met by every sender at once.
    package static func backoff(afterAttempts attempts: Int) -> TimeInterval {
        let base = min(5 * pow(2, Double(max(0, attempts - 1))), 3_600)
        return base * Double.random(in: 0.8...1.2)
    }
}

/// What ServiceLifecycle logs when it starts and stops the dispatcher: the receivers' names, never their secrets.
extension WebhookDispatcher: CustomStringConvertible {
    package var description: String { "WebhookDispatcher(receivers: \(receivers.keys.sorted()))" }
}

/// How a webhook delivery travels: one request, which the receiver accepts or refuses. Redirects are not followed,
/// and what a receiver answers beyond acceptance is not read.
package protocol WebhookTransport: Sendable {
    /// Sends `body` to `url` with `headers`; nil when the receiver accepted it within `timeout`, else why it did not
    /// (`HTTP 500`), never its reply's body.
    func deliver(_ body: [UInt8], to url: String, headers: [(name: String, value: String)], timeout: Duration) async throws -> String?
    /// Closes what the transport holds open.
    func shutdown() async throws
}
