import Foundation
import Hummingbird
import HummingbirdCore
import LatchkeyConfiguration
import LatchkeyService
import LatchkeyStore
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle
import WebAuthn

/// Builds the Latchkey HTTP application over a store: the ceremonies (the conformance API),
/// sessions, well-known files and the web page.
public enum LatchkeyServer {
    /// This Latchkey's version, as `latchkey --version` prints it.
    public static let version = LatchkeyRelease.version

    /// The router with every route and middleware, without a listening socket. `metrics` records
    /// ceremonies, verification and store latency; `metricsRegistry`, when given with a
    /// `metricsToken`, is served at `/metrics` to bearers of that token. The admin API is on it
    /// unless the configuration names an `adminAddress` (see ``adminRouter(configuration:store:attestationTrust:authenticatorNames:metrics:)``).
    public static func router(
        configuration: LatchkeyConfiguration, store: any LatchkeyStore, attestationTrust: AttestationTrust,
        appAttestRoots: [X509Certificate] = [], authenticatorNames: AuthenticatorNames = AuthenticatorNames(),
        metrics: LatchkeyMetrics = LatchkeyMetrics(), metricsRegistry: PrometheusCollectorRegistry? = nil, logger: Logger
    ) -> Router<LatchkeyRequestContext> {
        router(
            service: RelyingPartyService(
                configuration: configuration, store: store, attestationTrust: attestationTrust, appAttestRoots: appAttestRoots, metrics: metrics,
                authenticatorNames: authenticatorNames),
            metricsRegistry: metricsRegistry, logger: logger)
    }

    /// The router of the separate admin listener (`adminAddress`): the admin API alone, with
    /// request IDs, security headers and JSON errors, and no CORS.
    public static func adminRouter(
        configuration: LatchkeyConfiguration, store: any LatchkeyStore, attestationTrust: AttestationTrust,
        authenticatorNames: AuthenticatorNames = AuthenticatorNames(), metrics: LatchkeyMetrics = LatchkeyMetrics()
    ) -> Router<LatchkeyRequestContext> {
        adminRouter(
            service: RelyingPartyService(
                configuration: configuration, store: store, attestationTrust: attestationTrust, appAttestRoots: [], metrics: metrics,
                authenticatorNames: authenticatorNames))
    }

    static func adminRouter(service: RelyingPartyService) -> Router<LatchkeyRequestContext> {
        let router = Router(context: LatchkeyRequestContext.self, options: .autoGenerateHeadEndpoints)
        addRequestBookkeeping(to: router, service: service)
        router.add(middleware: ErrorReplyMiddleware())
        router.add(middleware: ErrorStatusMiddleware(health: service.health))
        addAdminRoutes(to: router, routes: ServiceRoutes(service: service))
        MethodNotAllowedRoutes.add(to: router)
        return router
    }

    /// The outermost middleware of both routers: the request ID, the client address and the
    /// request metrics (which see every reply, errors included), then headers on every reply. IDs
    /// and metrics are left out when the operations features are off.
    private static func addRequestBookkeeping(to router: Router<LatchkeyRequestContext>, service: RelyingPartyService) {
        let configuration = service.configuration
        if service.operations == .on {
            router.add(middleware: RequestIDMiddleware(trustedProxies: Set(configuration.trustedProxies)))
        }
        router.add(middleware: ClientAddressMiddleware(resolver: ClientAddress.Resolver(trustedProxies: configuration.trustedProxies)))
        if service.operations == .on {
            router.add(middleware: RequestMetricsMiddleware())
        }
        router.add(middleware: SecurityHeadersMiddleware(strictTransportSecurity: configuration.usesHTTPS))
    }

    /// `/admin/v1`, behind the admin key check.
    private static func addAdminRoutes(to router: Router<LatchkeyRequestContext>, routes: ServiceRoutes) {
        let admin = router.group("admin/v1").add(middleware: AdminKeyAuthenticator(store: routes.service.store))
        AdminController(routes: routes).addRoutes(to: admin)
        EventsController(routes: routes).addAdminRoutes(to: admin)
    }

    static func router(service: RelyingPartyService, metricsRegistry: PrometheusCollectorRegistry?, logger: Logger) -> Router<LatchkeyRequestContext> {
        let configuration = service.configuration
        let metrics = service.metrics
        let routes = ServiceRoutes(service: service)

        // Outermost first: the request ID, the client address and the request metrics (which see
        // every reply, errors included), headers on every reply, CORS (for the origins it allows),
        // then JSON for every error, then the request guards, the rate limit and static files;
        // innermost, the error mapping and, inside it, the ceremony metrics, which see the core's
        // own errors.
        // HEAD is answered wherever GET is, by the GET handler without its body.
        let router = Router(context: LatchkeyRequestContext.self, options: .autoGenerateHeadEndpoints)
        addRequestBookkeeping(to: router, service: service)
        switch service.policy.crossOriginRequests {
        case .anyOriginWithCredentials:
            router.add(middleware: OriginCORSMiddleware(allowed: .any))
            router.add(middleware: ErrorReplyMiddleware())
        case .configuredOrigins:
            if !configuration.corsOrigins.isEmpty {
                router.add(middleware: OriginCORSMiddleware(allowed: .only(Set(configuration.corsOrigins))))
            }
            router.add(middleware: ErrorReplyMiddleware())
            router.add(middleware: CrossSiteRequestGuard(origins: configuration.pageOrigins))
        }
        if service.policy.clientAddressLimits == .enforced, configuration.rateLimit > 0 {
            router.add(middleware: RateLimitMiddleware(buckets: TokenBuckets(rate: configuration.rateLimit, burst: configuration.rateLimitBurst)))
        }
        router.add(middleware: StaticFilePathGuard())
        router.add(middleware: StaticFileMethodsMiddleware(publicDirectory: configuration.publicDirectory))
        router.add(middleware: RouteNotFoundShield(side: .outsideFileMiddleware))
        router.add(middleware: FileMiddleware(configuration.publicDirectory, searchForIndexHtml: true, logger: logger))
        router.add(middleware: RouteNotFoundShield(side: .insideFileMiddleware))
        router.add(middleware: ErrorStatusMiddleware(health: service.health))
        if service.operations == .on {
            router.add(middleware: CeremonyMetricsMiddleware(metrics: metrics))
        }

        addServiceRoutes(to: router, routes: routes)
        HealthController(health: service.health).addRoutes(to: router)
        if let metricsRegistry, !configuration.metricsToken.isEmpty {
            MetricsEndpoint(registry: metricsRegistry, token: configuration.metricsToken).addRoutes(to: router)
        }

        // Last, so it sees every route: a wrong method on a known path is a 405 naming the right ones.
        MethodNotAllowedRoutes.add(to: router)
        return router
    }

    /// The routes of the service: ceremonies, sessions, passkeys, account, device keys, App Attest, the
    /// well-known files and key set, and the admin API unless it has a listener of its own.
    private static func addServiceRoutes(to router: Router<LatchkeyRequestContext>, routes: ServiceRoutes) {
        let service = routes.service
        let configuration = service.configuration
        // Routes that need to know who is signed in resolve the session once, in this middleware.
        let authenticator = SessionAuthenticator(sessions: service.sessions, cookies: routes.cookies)
        RegistrationController(routes: routes).addRoutes(authenticated: router.group("attestation").add(middleware: authenticator))
        SignInController(routes: routes).addRoutes(to: router.group("assertion"))
        SessionController(routes: routes).addRoutes(to: router.group("session").add(middleware: authenticator))
        CredentialsController(routes: routes).addRoutes(to: router.group("credentials").add(middleware: authenticator))
        let account = router.group("account").add(middleware: authenticator)
        AccountController(routes: routes).addRoutes(to: account)
        EventsController(routes: routes).addAccountRoutes(to: account)
        DeviceKeysController(routes: routes).addRoutes(
            authenticated: router.group("device-keys").add(middleware: authenticator), signIn: router.group("device-keys/sign-in"))
        if configuration.appAttest != .off {
            AppAttestController(routes: routes).addRoutes(to: router.group("app-attest"))
        }
        WellKnownController(files: configuration.wellKnownFiles).addRoutes(to: router.group(".well-known"))
        KeySetController(tokens: service.tokens).addRoutes(to: router.group(".well-known"))
        if configuration.adminAddress == nil {
            addAdminRoutes(to: router, routes: routes)
        }
    }

    /// The application over `store`: loads attestation trust, and runs the store, a purger of
    /// expired challenges and sessions and, with a `metricsAddress` or an `adminAddress`, the
    /// metrics or admin listener as services beside the HTTP server, every listener on `eventLoops`.
    /// `operations` is ``OperationsFeatures/off`` only to measure what request IDs, request and
    /// ceremony metrics and timed store calls cost (`scripts/benchmark-operations`). On graceful shutdown the server stops first, then the
    /// others, then the store closes. Metrics go to `metricsRegistry` (the factory bootstrapped
    /// over it is the caller's).
    public static func application(
        configuration: LatchkeyConfiguration, store: any LatchkeyStore, metricsRegistry: PrometheusCollectorRegistry? = nil,
        eventLoops: EventLoopGroupProvider = .singleton, operations: OperationsFeatures = .on, logger: Logger
    ) throws -> some ApplicationProtocol {
        let trust = try AttestationTrustLoader.load(configuration, logger: logger)
        let names = try AuthenticatorNames.load(configuration, metadata: trust.statusSource as? MetadataService)
        let appAttestRoots = configuration.appAttest == .off ? [] : try AttestationTrustLoader.appAttestRoots(configuration, logger: logger)
        let metrics = LatchkeyMetrics()
        let shared = RelyingPartyService(
            configuration: configuration, store: store, attestationTrust: trust, appAttestRoots: appAttestRoots, metrics: metrics,
            operations: operations, authenticatorNames: names)
        // The store runs (and closes) once; the background services call it as requests do, through the shared one.
        var services: [any Service] = [
            store,
            ExpiredRecordPurger(
                store: shared.store, metrics: metrics, logger: logger, eventRetention: TimeInterval(configuration.eventRetentionDays) * 86_400),
        ]
        let signer = configuration.webhookURLs.isEmpty
            ? nil : try WebhookSigner(secret: configuration.webhookSecret, previous: configuration.webhookPreviousSecret)
        services.append(try WebhookDispatcher(
            store: shared.store, signer: signer,
            receivers: configuration.webhookReceivers, metrics: metrics, logger: logger, makeTransport: { HTTPClientWebhookTransport() }))
        let metricsAddress = configuration.metricsAddress
        let adminAddress = configuration.adminAddress
        // Connections are bounded by the descriptors there are: a full listener closes its
        // longest-idle connection for a newcomer, and running out all the same pauses accepts. The
        // PostgreSQL pool, the admin and metrics listeners and the webhook requests hold theirs.
        let (maximumConnections, warning) = DescriptorBudget.maximumConnections(
            configured: configuration.maxConnections, descriptorLimit: DescriptorBudget.raiseLimit(),
            otherConnections: try otherConnections(configuration))
        if let warning { logger.warning("\(warning)") }
        // The same limits on the admin and metrics listeners: they are reached by fewer, not by more trusted, peers.
        func listener(limit: Int) -> (server: HTTPServerBuilder, onRunning: @Sendable (any Channel) async -> Void) {
            let shedder = ConnectionShedder(limit: limit)
            let server = HTTPServerBuilder.http1(configuration: .init(
                additionalChannelHandlers: [
                    ConnectionLimitsHandler(requestTimeout: .seconds(Int64(configuration.requestTimeout)), logger: logger, shedder: shedder)
                ],
                idleTimeout: .seconds(60),
                httpDecoderConfiguration: .init(
                    maxHeaderFieldSize: HTTPLimits.maximumHeaderBytes, maxHeaderListSize: HTTPLimits.maximumHeaderBytes,
                    maxHeaderFieldCount: HTTPLimits.maximumHeaderFields)))
            return (server, { channel in
                try? await channel.pipeline.addHandlers(
                    [AcceptBackoff(logger: logger, metrics: metrics, shedder: shedder), ConnectionShedder.Handler(shedder: shedder)],
                    position: .first)
            })
        }
        if let metricsRegistry, let address = metricsAddress {
            let metricsRouter = Router()
            MetricsEndpoint(registry: metricsRegistry, token: nil).addRoutes(to: metricsRouter)
            let metricsListener = listener(limit: Self.internalListenerConnections)
            services.append(Application(
                router: metricsRouter, server: metricsListener.server,
                configuration: .init(address: .hostname(address.host, port: address.port), serverName: "Latchkey"),
                onServerRunning: metricsListener.onRunning, eventLoopGroupProvider: eventLoops, logger: logger))
        }
        if let address = adminAddress {
            let admin = listener(limit: Self.internalListenerConnections)
            services.append(Application(
                router: adminRouter(service: shared), server: admin.server,
                configuration: .init(address: .hostname(address.host, port: address.port), serverName: "Latchkey"),
                onServerRunning: admin.onRunning, eventLoopGroupProvider: eventLoops, logger: logger))
        }
        let main = listener(limit: maximumConnections)
        return Application(
            router: router(service: shared, metricsRegistry: metricsRegistry, logger: logger),
            server: main.server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Latchkey"),
            services: services,
            onServerRunning: main.onRunning,
            eventLoopGroupProvider: eventLoops,
            logger: logger)
    }

    /// Connections the admin listener holds open at most: it serves a few backends.
    static let internalListenerConnections = 64

    /// The connections the server holds beside the main listener's: the PostgreSQL pool, the admin and metrics
    /// listeners' connections, webhook requests.
    static func otherConnections(_ configuration: LatchkeyConfiguration) throws -> Int {
        let listeners = [configuration.metricsAddress, configuration.adminAddress].compactMap { $0 }.count
        return (configuration.database.contains("://") ? 20 : 0) + listeners * internalListenerConnections
            + configuration.webhookURLs.count * WebhookDispatcher.batchSize
    }

    /// Why the server cannot start with the open-file limit it has (raised to the hard limit first), for this
    /// configuration; nil when it can.
    public static func descriptorLimitProblem(_ configuration: LatchkeyConfiguration) throws -> String? {
        DescriptorBudget.startupProblem(otherConnections: try otherConnections(configuration))
    }
}
