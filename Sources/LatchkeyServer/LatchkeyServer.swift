import Foundation
import Hummingbird
import LatchkeyStore
import Logging
import ServiceLifecycle
import WebAuthn

/// Builds the Latchkey HTTP application over a store: the ceremonies (the conformance API),
/// sessions, well-known files and the web page.
public enum LatchkeyServer {
    /// This Latchkey's version, as `latchkey --version` prints it.
    public static let version = "0.7.0"

    /// The router with every route and middleware, without a listening socket.
    public static func router(
        configuration: LatchkeyConfiguration, store: any LatchkeyStore, attestationTrust: AttestationTrust,
        authenticatorNames: AuthenticatorNames = AuthenticatorNames(), logger: Logger
    ) -> Router<LatchkeyRequestContext> {
        let services = LatchkeyServices(configuration: configuration, store: store, attestationTrust: attestationTrust)

        // Outermost first: headers on every reply, then JSON for every error (after CORS added its
        // headers to it), then the request guards and static files; innermost, the error mapping.
        // HEAD is answered wherever GET is, by the GET handler without its body.
        let router = Router(context: LatchkeyRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: RequestIDMiddleware(trustedProxies: Set(configuration.trustedProxies)))
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: ErrorMiddleware())
        switch services.policy.crossOriginRequests {
        case .allowedWithCredentials:
            router.add(middleware: CORSMiddleware(allowOrigin: .originBased, allowCredentials: true, maxAge: .seconds(600)))
        case .refused:
            router.add(middleware: CrossSiteRequestGuard(origins: Set(configuration.origins)))
        }
        router.add(middleware: FileMiddleware(configuration.publicDirectory, searchForIndexHtml: true, logger: logger))
        router.add(middleware: ErrorMapping())

        // Routes that need to know who is signed in resolve the session once, in this middleware.
        let authenticator = SessionAuthenticator(sessions: services.sessions)
        RegistrationController(services: services).addRoutes(
            to: router.group("attestation"), authenticated: router.group("attestation").add(middleware: authenticator))
        AuthenticationController(services: services).addRoutes(to: router.group("assertion"))
        SessionController(services: services).addRoutes(to: router.group("session").add(middleware: authenticator))
        CredentialsController(services: services, names: authenticatorNames).addRoutes(
            to: router.group("credentials").add(middleware: authenticator))
        AccountController(services: services).addRoutes(to: router.group("account").add(middleware: authenticator))
        WellKnownController(appleAppSiteAssociation: AppleAppSiteAssociation(
            webCredentialApps: configuration.appleAppIDs, appLinkApps: configuration.appleAppLinks)
        ).addRoutes(to: router.group(".well-known"))

        HealthController(store: store).addRoutes(to: router)

        // Last, so it sees every route: a wrong method on a known path is a 405 naming the right ones.
        MethodNotAllowedRoutes.add(to: router)
        return router
    }

    /// The application over `store`: loads attestation trust, and runs the store and a purger of
    /// expired challenges and sessions as services beside the HTTP server. On graceful shutdown the
    /// server stops first, then the purger, then the store closes.
    public static func application(
        configuration: LatchkeyConfiguration, store: any LatchkeyStore, logger: Logger
    ) throws -> some ApplicationProtocol {
        let trust = try AttestationTrustLoader.load(configuration, logger: logger)
        let names = try AuthenticatorNames.load(configuration, metadata: trust.statusSource as? MetadataService)
        return Application(
            router: router(
                configuration: configuration, store: store, attestationTrust: trust, authenticatorNames: names, logger: logger),
            server: .http1(configuration: .init(idleTimeout: .seconds(60))),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Latchkey"),
            services: [store, ExpiredRecordPurger(store: store, logger: logger)],
            logger: logger)
    }
}
