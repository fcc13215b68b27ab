import Foundation
import Hummingbird
import LatchkeyStore
import Logging
import ServiceLifecycle
import WebAuthn

/// Builds the Latchkey HTTP application: the conformance API, sessions, well-known files and the
/// web page, over a store.
public enum LatchkeyServer {
    /// The router with every route and middleware, without a listening socket.
    public static func router(
        configuration: LatchkeyConfiguration, store: any LatchkeyStore, attestationTrust: AttestationTrust, logger: Logger
    ) -> Router<BasicRequestContext> {
        let services = LatchkeyServices(configuration: configuration, store: store, attestationTrust: attestationTrust)
        let registration = RegistrationEndpoints(services: services)
        let authentication = AuthenticationEndpoints(services: services)
        let sessions = SessionEndpoints(services: services)
        let association = AppleAppSiteAssociation(webCredentialApps: configuration.appleAppIDs, appLinkApps: configuration.appleAppLinks)

        // Outermost first: headers on every reply, then JSON for every error (after CORS added its
        // headers to it), then the request guards and static files; innermost, the error mapping.
        let router = Router()
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: ErrorMiddleware())
        if configuration.conformanceMode {
            // The FIDO conformance tool calls from its own origin, with credentials.
            router.add(middleware: CORSMiddleware(allowOrigin: .originBased, allowCredentials: true, maxAge: .seconds(600)))
        } else {
            router.add(middleware: CrossSiteRequestGuard(origins: Set(configuration.origins)))
        }
        router.add(middleware: FileMiddleware(configuration.publicDirectory, searchForIndexHtml: true, logger: logger))
        router.add(middleware: ErrorMapping())

        router.post("/attestation/options") { request, _ in try await registration.options(request) }
        router.post("/attestation/result") { request, context in try await registration.result(request, logger: context.logger) }
        router.post("/assertion/options") { request, _ in try await authentication.options(request) }
        router.post("/assertion/result") { request, context in try await authentication.result(request, logger: context.logger) }
        router.get("/session") { request, _ in try await sessions.current(request) }
        router.post("/session/logout") { request, _ in try await sessions.logout(request) }
        router.get("/.well-known/apple-app-site-association") { _, _ in association.response() }
        for path in ["/attestation/options", "/attestation/result", "/assertion/options", "/assertion/result", "/session/logout"] {
            router.get(RouterPath(path)) { _, _ -> Response in
                throw APIError(.methodNotAllowed, "\(path) takes POST with a JSON body", headers: [.allow: "POST"])
            }
        }
        return router
    }

    /// Opens the SQLite store named in the configuration and builds the application, with a
    /// background service that purges expired challenges and sessions.
    public static func application(configuration: LatchkeyConfiguration, logger: Logger) throws -> some ApplicationProtocol {
        let trust = try AttestationTrustLoader.load(configuration, logger: logger)
        let store = try SQLiteStore(path: configuration.database)
        return Application(
            router: router(configuration: configuration, store: store, attestationTrust: trust, logger: logger),
            server: .http1(configuration: .init(idleTimeout: .seconds(60))),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Latchkey"),
            services: [ExpiredRecordPurger(store: store, logger: logger)],
            logger: logger)
    }
}
