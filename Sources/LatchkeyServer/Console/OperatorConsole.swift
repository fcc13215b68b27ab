import Foundation
import LatchkeyService
import LatchkeyStore
import WebAuthn

/// The operator console: its page at `/console/` (the `console` folder of `publicDirectory`, which the main site
/// does not serve), the operators' own ceremonies and session under `/console/api`, and the admin API of the site's
/// tenant under `/console/api/v1` (the same routes as `/admin/v1`) for a signed-in operator, whose every change is
/// an event with the operator as its actor. Every API route is behind ``ConsoleRequestGuard``.
struct OperatorConsole: Sendable {
    /// The folder of `publicDirectory` the console's page is in.
    static let folder = "console"

    /// The site's scripts the console's page loads too, served at the same path under `/console`.
    static let sharedScripts = ["/webauthn-json.js"]

    /// The operators' relying party, with the console's cookies.
    let operators: ServiceRoutes
    /// The tenant the console shows and changes.
    let tenant: ServiceRoutes
    let files: StaticFiles
    /// Whether this is the console itself (its page, the operators' ceremonies and session, the list of tenants), or
    /// only its API for one more tenant, which that tenant's sites serve at `/t/{tenant}/console/api/v1`.
    let isWholeConsole: Bool

    /// The console of `tenant` for the operators of `operatorService`: its page from the `console` folder of
    /// `publicDirectory`, and the scripts it shares with the site's page from `siteFiles` (read once, by the server).
    init(operatorService: RelyingPartyService, tenant: ServiceRoutes, publicDirectory: String, siteFiles: StaticFiles) throws {
        let configuration = operatorService.configuration
        operators = ServiceRoutes(service: operatorService, cookies: ServiceCookies(
            secure: configuration.usesHTTPS, crossSite: false, sessionLifetime: configuration.sessionTimeout,
            challengeLifetime: configuration.challengeTimeout, prefix: "latchkey_console", acceptsBearer: false))
        self.tenant = tenant
        isWholeConsole = true
        let own = try StaticFiles(folder: URL(fileURLWithPath: publicDirectory).appendingPathComponent(Self.folder).path)
        files = own.adding(Self.sharedScripts, from: siteFiles)
    }

    private init(of console: OperatorConsole, tenant: ServiceRoutes) {
        (operators, self.tenant, files, isWholeConsole) = (console.operators, tenant, console.files, false)
    }

    /// The console's API for `tenant`, for the same operators: the console's tenant picker reaches each tenant's
    /// users, events and keys at `/t/{tenant}/console/api/v1`, on the console's origin, through that tenant's sites.
    func serving(_ tenant: ServiceRoutes) -> OperatorConsole {
        OperatorConsole(of: self, tenant: tenant)
    }

    /// The console's origin: the operators' relying party's only one.
    var origin: String { operators.service.configuration.origins.first ?? "" }

    func addRoutes(to router: Router) {
        let api = router.group("console/api").add(middleware: ConsoleRequestGuard(origin: origin))
        let signedIn = OperatorSessionAuthenticator(sessions: operators.service.sessions, cookies: operators.cookies)
        let admin = api.group("v1").add(middleware: signedIn)
        AdminController(routes: tenant).addRoutes(to: admin)
        EventsController(routes: tenant).addAdminRoutes(to: admin)
        StatisticsController(routes: tenant).addAdminRoutes(to: admin)
        ConsoleKeysController(routes: tenant).addRoutes(to: admin)
        OAuthClientsController(routes: tenant).addRoutes(to: admin)
        guard isWholeConsole else { return }

        // `/console` and `/console/` are one route.
        let files = files
        router.get("console/", immediately: { request, _ in try Self.file("/", of: files, request) })
        router.get("console/{file}", immediately: { request, context in
            try Self.file("/" + (context.parameters.get("file") ?? ""), of: files, request)
        })

        api.post("enroll/options", use: enrollmentOptions)
        api.post("enroll/result", use: enrollmentResult)
        api.post("sign-in/options", use: signInOptions)
        api.post("sign-in/result", use: signInResult)
        let session = api.group("session").add(middleware: signedIn)
        session.get(use: currentSession)
        session.delete(use: signOut)
        api.group("tenants").add(middleware: signedIn).get(use: tenants)
    }

    private static func file(_ path: String, of files: StaticFiles, _ request: Request) throws -> Response {
        guard let file = files.file(at: path) else { throw APIError(.notFound, "the console has no file \(path.debugDescription)") }
        return StaticFiles.reply(file, to: request)
    }

    // MARK: The operators' ceremonies

    /// `{"enrollmentTicket"}` from the link `latchkey operators add` printed: options for the operator's passkey.
    @Sendable func enrollmentOptions(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let body = try request.decode(as: EnrollmentOptionsRequest.self)
        guard let ticket = body.enrollmentTicket, !ticket.isEmpty else {
            throw APIError.badRequest("enrollmentTicket is required: open the link `latchkey operators add` printed")
        }
        let issued = try await operators.service.registration.options(
            RegistrationOptionsRequest(enrollmentTicket: ticket), appAttestation: AppAttestProof(header: nil, body: [], binding: .none),
            caller: operators.caller(request, context), presented: operators.binding(.registration, request))
        return operators.reply(issued, .registration)
    }

    /// The new passkey: the operator is signed in (the session only in its HttpOnly cookie).
    @Sendable func enrollmentResult(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let credential = try request.decode(as: RegistrationCredential.self)
        let registered = try await operators.service.registration.finish(
            credential, caller: operators.caller(request, context), presented: operators.binding(.registration, request))
        let reply = JSONResponse.make(OperatorReply(operator: registered.username))
        return operators.ending(.registration, with: reply, session: registered.session?.token)
    }

    /// Usernameless options: the operator's passkey names the operator.
    @Sendable func signInOptions(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let issued = try await operators.service.signIn.options(
            .usernameless, caller: operators.caller(request, context), presented: operators.binding(.signIn, request))
        return operators.reply(issued, .signIn)
    }

    @Sendable func signInResult(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let credential = try request.decode(as: SignInCredential.self)
        let signedIn = try await operators.service.signIn.finish(
            credential, caller: operators.caller(request, context), presented: operators.binding(.signIn, request))
        let reply = JSONResponse.make(OperatorReply(operator: signedIn.user.username))
        return operators.ending(.signIn, with: reply, session: signedIn.session.token)
    }

    /// Who is signed in, until when, and the CSRF token every change needs.
    @Sendable func currentSession(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        // ``OperatorSessionAuthenticator`` found both, or answered 401.
        let token = request.cookieValue(named: operators.cookies.sessionName) ?? ""
        guard let session = context.operatorSession else { throw APIError(.internalServerError, "the console's session was not resolved") }
        return JSONResponse.make(OperatorSessionReply(
            operator: session.user.username, expiresAt: RFC3339.string(session.session.expiresAt),
            csrfToken: ConsoleCSRF.token(forSession: token), rpId: operators.service.relyingParty.id,
            tenant: tenant.service.store.tenant.rawValue))
    }

    /// The tenants the picker offers besides the default one: each stored tenant's ID and name.
    @Sendable func tenants(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let stored = try await tenant.service.tenantAdministration.tenants()
        let entries = stored.map { stored in
            let id = stored.record.id.rawValue
            return ConsoleTenantsReply.Entry(id: id, name: stored.settings?.configuration.rpName ?? id)
        }
        return JSONResponse.make(ConsoleTenantsReply(defaultName: tenant.service.relyingParty.name, tenants: entries))
    }

    @Sendable func signOut(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        // The operator, as the account service knows a signed-in caller (the admin routes are given no identity).
        var context = context
        context.identity = context.operatorSession
        try await operators.service.account.signOut(caller: operators.caller(request, context))
        var response = JSONResponse.ok()
        response.setCookie(operators.cookies.clearingSession())
        return response
    }
}

/// `POST /console/api/enroll/options`.
struct EnrollmentOptionsRequest: Decodable, Sendable {
    var enrollmentTicket: String?
}

/// Who signed in to the console (never the session token: it stays in its cookie).
struct OperatorReply: ReplyBody {
    var `operator`: String
}

/// `GET /console/api/session`.
struct OperatorSessionReply: ReplyBody {
    var `operator`: String
    var expiresAt: String
    var csrfToken: String
    var rpId: String
    var tenant: String
}

/// `GET /console/api/tenants`: the tenants an operator can pick, the default one first.
struct ConsoleTenantsReply: ReplyBody {
    struct Entry: Encodable, Sendable {
        var id: String
        var name: String
    }

    /// The default tenant's name (its `rpName`).
    var defaultName: String
    var tenants: [Entry]
}
