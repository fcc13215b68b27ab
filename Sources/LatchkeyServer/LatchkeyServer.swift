import Foundation
import LatchkeyConfiguration
import LatchkeyService
import LatchkeyStore
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle
import WebAuthn

/// Builds the Latchkey HTTP server over a store: the ceremonies (the conformance API), sessions, well-known files
/// and the web page, served through SwiftNIO.
public enum LatchkeyServer {
    /// This Latchkey's version, as `latchkey --version` prints it.
    public static let version = LatchkeyRelease.version

    /// The main listener's site: every route and the steps around them, without a listening socket. `metrics`
    /// records ceremonies, verification and store latency; `metricsRegistry`, when given with a `metricsToken`, is
    /// served at `/metrics` to bearers of that token. The admin API is on it unless the configuration names an
    /// `adminAddress` (see ``adminSite(configuration:store:attestationTrust:authenticatorNames:metrics:logger:)``), with
    /// `/admin/v1/tenants` (which serves what it changes only through ``application(configuration:store:metricsRegistry:eventLoops:operations:logger:)``).
    public static func site(
        configuration: LatchkeyConfiguration, store: any LatchkeyStore, attestationTrust: AttestationTrust,
        appAttestRoots: [X509Certificate] = [], authenticatorNames: AuthenticatorNames = AuthenticatorNames(),
        metrics: LatchkeyMetrics = LatchkeyMetrics(), metricsRegistry: PrometheusCollectorRegistry? = nil, logger: Logger
    ) throws -> Site {
        let relyingParties = try RelyingParties(
            configuration: configuration, store: store, attestationTrust: attestationTrust, appAttestRoots: appAttestRoots,
            names: authenticatorNames, metrics: metrics)
        return try site(service: relyingParties.shared, metricsRegistry: metricsRegistry, tenants: relyingParties, logger: logger)
    }

    /// The site of the separate admin listener (`adminAddress`): the admin API alone, with request IDs, security
    /// headers and JSON errors, and no CORS or files.
    public static func adminSite(
        configuration: LatchkeyConfiguration, store: any LatchkeyStore, attestationTrust: AttestationTrust,
        authenticatorNames: AuthenticatorNames = AuthenticatorNames(), metrics: LatchkeyMetrics = LatchkeyMetrics(), logger: Logger
    ) throws -> Site {
        let relyingParties = try RelyingParties(
            configuration: configuration, store: store, attestationTrust: attestationTrust, names: authenticatorNames, metrics: metrics)
        return adminSite(service: relyingParties.shared, tenants: relyingParties, logger: logger)
    }

    /// The admin listener's site of `service`'s tenant; with `tenants`, the default tenant's, with `/admin/v1/tenants`;
    /// with `console`, the operator console at `/console/`.
    static func adminSite(
        service: RelyingPartyService, tenants: RelyingParties? = nil, console: OperatorConsole? = nil, logger: Logger
    ) -> Site {
        let router = Router()
        addAdminRoutes(to: router, routes: ServiceRoutes(service: service), tenants: tenants, logger: logger)
        console?.addRoutes(to: router)
        var steps = responder(service, router, logger: logger)
        // The console's sign-in and enrollment ceremonies draw on the per-client limit, in the operators' own buckets.
        if console?.isWholeConsole == true { steps.rateLimit = rateLimit(of: service, buckets: .operators) }
        return Site(routes: router.routes, responder: steps)
    }

    /// The per-client limit of `service`'s ceremony routes, in the buckets of `tenant` (the service's own unless
    /// named); nil when limits are off.
    private static func rateLimit(of service: RelyingPartyService, buckets tenant: TenantID? = nil) -> RateLimit? {
        let configuration = service.configuration
        guard service.policy.clientAddressLimits == .enforced, configuration.rateLimit > 0 else { return nil }
        return RateLimit(buckets: service.limits.buckets(
            for: tenant ?? service.store.tenant, rate: configuration.rateLimit, burst: configuration.rateLimitBurst))
    }

    /// The steps every request of `router` takes (see ``Responder``): request IDs and metrics unless the operations
    /// features are off; the client address; security headers and the error mapping always.
    private static func responder(_ service: RelyingPartyService, _ router: Router, logger: Logger) -> Responder {
        let configuration = service.configuration
        let operations = service.operations == .on
        return Responder(
            table: router.table(),
            requestIDs: operations ? RequestIDs(trustedProxies: Set(configuration.trustedProxies)) : nil,
            clientAddresses: ClientAddress.Resolver(trustedProxies: configuration.trustedProxies),
            requestMetrics: operations ? RequestMetrics(tenant: service.store.tenant) : nil,
            securityHeaders: SecurityHeaders(strictTransportSecurity: configuration.usesHTTPS),
            errors: ErrorStatus(health: service.health), logger: logger)
    }

    /// `/admin/v1`, behind the admin key check; with `tenants`, `/admin/v1/tenants` behind the operator key check, whose
    /// changes this instance serves at once.
    private static func addAdminRoutes(to router: Router, routes: ServiceRoutes, tenants: RelyingParties?, logger: Logger) {
        let admin = router.group("admin/v1").add(middleware: AdminKeyAuthenticator(store: routes.service.store))
        AdminController(routes: routes).addRoutes(to: admin)
        EventsController(routes: routes).addAdminRoutes(to: admin)
        OAuthClientsController(routes: routes).addRoutes(to: admin)
        MigrationController(routes: routes).addRoutes(to: admin)
        StatisticsController(routes: routes).addAdminRoutes(to: admin)
        if let tenants {
            TenantsController(routes: routes, refresh: { try? await tenants.refresh(logger: logger) })
                .addRoutes(to: router.group("admin/v1/tenants").add(middleware: OperatorKeyAuthenticator(store: routes.service.store)))
        }
    }

    /// The main listener's site of `service`'s tenant; `files` are the page's (read from `publicDirectory` when nil).
    static func site(
        service: RelyingPartyService, metricsRegistry: PrometheusCollectorRegistry?, files: StaticFiles? = nil, tenants: RelyingParties? = nil,
        console: OperatorConsole? = nil, logger: Logger
    ) throws -> Site {
        let configuration = service.configuration
        let router = Router()
        addServiceRoutes(to: router, routes: ServiceRoutes(service: service), tenants: tenants, logger: logger)
        // The console goes where the admin API is.
        if configuration.adminAddress == nil { console?.addRoutes(to: router) }
        HealthController(health: service.health).addRoutes(to: router)
        if let metricsRegistry, !configuration.metricsToken.isEmpty {
            MetricsEndpoint(registry: metricsRegistry, token: configuration.metricsToken).addRoutes(to: router)
        }
        var responder = responder(service, router, logger: logger)
        responder.files = try files ?? StaticFiles(folder: configuration.publicDirectory, excluding: [OperatorConsole.folder])
        if service.operations == .on { responder.ceremonyMetrics = CeremonyMetrics(metrics: service.metrics, tenant: service.store.tenant) }
        switch service.policy.crossOriginRequests {
        case .anyOriginWithCredentials:
            responder.cors = OriginCORS(allowed: .any)
        case .configuredOrigins:
            if !configuration.corsOrigins.isEmpty { responder.cors = OriginCORS(allowed: .only(Set(configuration.corsOrigins))) }
            // The console's page posts to its own routes here, when they are here (its guard checks them itself).
            let consoleOrigins = configuration.adminAddress == nil && console != nil ? [configuration.consoleOrigin] : []
            responder.crossSiteGuard = CrossSiteRequestGuard(origins: configuration.pageOrigins.union(consoleOrigins))
        }
        // The console's ceremonies, when it is here, draw on the same buckets: one client, one budget.
        responder.rateLimit = rateLimit(of: service)
        return Site(routes: router.routes, responder: responder)
    }

    /// The routes of the service: the site's description, ceremonies, sessions, passkeys, account, device keys, App Attest, the
    /// well-known files and key set, and the admin API unless it has a listener of its own.
    private static func addServiceRoutes(to router: Router, routes: ServiceRoutes, tenants: RelyingParties?, logger: Logger) {
        let service = routes.service
        let configuration = service.configuration
        // Routes that need to know who is signed in resolve the session once, in this middleware.
        let authenticator = SessionAuthenticator(sessions: service.sessions, cookies: routes.cookies)
        RegistrationController(routes: routes).addRoutes(authenticated: router.group("attestation").add(middleware: authenticator))
        SignInController(routes: routes).addRoutes(to: router.group("assertion"))
        SessionController(routes: routes).addRoutes(to: router.group("session").add(middleware: authenticator))
        SiteController(routes: routes).addRoutes(to: router.group("site").add(middleware: authenticator))
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
        OpenIDController(routes: routes).addRoutes(
            browser: router.group("oidc").add(middleware: authenticator), backChannel: router.group("oidc"),
            wellKnown: router.group(".well-known"))
        if configuration.adminAddress == nil {
            addAdminRoutes(to: router, routes: routes, tenants: tenants, logger: logger)
        }
    }

    /// The roots App Attest chains may end in, loaded whatever the server's own setting: a tenant may turn App Attest
    /// on for its apps while the server's is off. Missing roots fail the start only when the server itself needs them.
    private static func appAttestRoots(_ configuration: LatchkeyConfiguration, logger: Logger) throws -> [X509Certificate] {
        do {
            return try AttestationTrustLoader.appAttestRoots(configuration, logger: logger)
        } catch where configuration.appAttest == .off {
            logger.warning("App Attest roots not loaded: no tenant can verify App Attest keys", metadata: ["error": "\(error)"])
            return []
        }
    }

    /// The server over `store`: loads attestation trust, and runs the store, a purger of expired challenges and
    /// sessions, the webhook dispatcher and, with a `metricsAddress` or an `adminAddress`, the metrics or admin
    /// listener as services beside the main listener, every listener on `eventLoops`. `operations` is
    /// ``OperationsFeatures/off`` only to measure what request IDs, request and ceremony metrics and timed store
    /// calls cost (`scripts/benchmark-operations`). On graceful shutdown (SIGTERM, SIGINT) the main listener stops
    /// first, then the others, then the store closes. Metrics go to `metricsRegistry` (the factory bootstrapped over
    /// it is the caller's).
    public static func application(
        configuration: LatchkeyConfiguration, store: any LatchkeyStore, metricsRegistry: PrometheusCollectorRegistry? = nil,
        eventLoops: any EventLoopGroup, operations: OperationsFeatures = .on, logger: Logger
    ) async throws -> ServiceGroup {
        let trust = try AttestationTrustLoader.load(configuration, logger: logger)
        let names = try AuthenticatorNames.load(configuration, metadata: trust.statusSource as? MetadataService)
        let appAttestRoots = try appAttestRoots(configuration, logger: logger)
        // On a store several instances share, limits are counted with theirs; SQLite's one process counts alone.
        let sharedLimitsStore = store as? any SharedLimitsStore
        let limits = ClientLimits(sharing: sharedLimitsStore != nil)
        let relyingParties = try RelyingParties(
            configuration: configuration, store: store, attestationTrust: trust, appAttestRoots: appAttestRoots, names: names,
            operations: operations, limits: limits, withOperators: true)
        let shared = relyingParties.shared
        let directory = TenantDirectory(server: configuration, stored: try await shared.store.tenantDirectory())
        for problem in directory.problems { logger.warning("\(problem)") }
        if !directory.records.isEmpty { logger.info("tenants loaded", metadata: ["tenants": "\(directory.records.count)"]) }
        relyingParties.update(to: directory)
        let files = try StaticFiles(folder: configuration.publicDirectory, excluding: [OperatorConsole.folder])
        let console = try relyingParties.operators.map { operators in
            try OperatorConsole(
                operatorService: operators, tenant: ServiceRoutes(service: shared), publicDirectory: configuration.publicDirectory,
                siteFiles: files)
        }
        // Each tenant's sites serve the console's API for that tenant, where the console is (its tenant picker).
        let makers = TenantSites.Makers(
            main: { service in
                let tenantConsole = console?.serving(ServiceRoutes(service: service))
                return try site(
                    service: service, metricsRegistry: nil, files: files, console: tenantConsole, logger: tenantLogger(logger, service)
                ).responder
            },
            admin: { service in
                let tenantConsole = console?.serving(ServiceRoutes(service: service))
                return adminSite(service: service, console: tenantConsole, logger: tenantLogger(logger, service)).responder
            })
        let defaultSite = try site(
            service: shared, metricsRegistry: metricsRegistry, files: files, tenants: relyingParties, console: console, logger: logger)
        let sites = TenantSites(
            relyingParties: relyingParties, defaultMain: defaultSite.responder,
            defaultAdmin: adminSite(service: shared, tenants: relyingParties, console: console, logger: logger).responder, makers: makers,
            logger: logger)
        // The store runs (and closes) once; the background services call it as requests do, through the shared one.
        let reconciler: [any Service] = sharedLimitsStore.map { [SharedLimitsReconciler(store: $0, limits: limits, logger: logger)] } ?? []
        let services: [any Service] = [store] + reconciler
            + (try relyingParties.backgroundServices(makeTransport: { HTTPClientWebhookTransport() }, logger: logger))
            + (try listeners(of: shared, sites: sites, metricsRegistry: metricsRegistry, eventLoops: eventLoops, logger: logger))
        return ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    }

    /// The main listener, and the metrics and admin listeners when they are configured.
    private static func listeners(
        of shared: RelyingPartyService, sites: TenantSites, metricsRegistry: PrometheusCollectorRegistry?, eventLoops: any EventLoopGroup,
        logger: Logger
    ) throws -> [any Service] {
        let configuration = shared.configuration
        // Connections are bounded by the descriptors there are: a full listener closes its
        // longest-idle connection for a newcomer, and running out all the same pauses accepts. The
        // PostgreSQL pool, the admin and metrics listeners and the webhook requests hold theirs.
        let (maximumConnections, warning) = DescriptorBudget.maximumConnections(
            configured: configuration.maxConnections, descriptorLimit: DescriptorBudget.raiseLimit(),
            otherConnections: try otherConnections(configuration))
        if let warning { logger.warning("\(warning)") }
        // The same limits on the admin and metrics listeners: they are reached by fewer, not by more trusted, peers.
        func listener(_ dispatch: RequestDispatch, _ host: String, _ port: Int, limit: Int) -> HTTPListener {
            HTTPListener(
                host: host, port: port, responder: dispatch, eventLoops: eventLoops, requestTimeout: .seconds(Int64(configuration.requestTimeout)),
                connectionLimit: limit, metrics: shared.metrics, logger: logger)
        }
        var listeners: [any Service] = []
        if let metricsRegistry, let address = configuration.metricsAddress {
            let router = Router()
            MetricsEndpoint(registry: metricsRegistry, token: nil).addRoutes(to: router)
            let site = Site(routes: router.routes, responder: responder(shared, router, logger: logger))
            listeners.append(listener(.site(site.responder), address.host, address.port, limit: Self.internalListenerConnections))
        }
        if let address = configuration.adminAddress {
            listeners.append(listener(.tenants(sites, .admin), address.host, address.port, limit: Self.internalListenerConnections))
        }
        listeners.append(listener(.tenants(sites, .main), configuration.host, configuration.port, limit: maximumConnections))
        return listeners
    }

    /// `logger` with the tenant's ID on every line of a tenant other than the default.
    private static func tenantLogger(_ logger: Logger, _ service: RelyingPartyService) -> Logger {
        var logger = logger
        if service.store.tenant != .default { logger[metadataKey: "tenant"] = "\(service.store.tenant)" }
        return logger
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
