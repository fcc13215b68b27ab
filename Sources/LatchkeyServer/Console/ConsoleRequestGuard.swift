import HTTPTypes
import LatchkeyService
import NIOHTTP1
import WebAuthn

/// What every console API request must show before anything is read: that the console's own page sent it. A
/// request another site's page made is refused (its `Origin` is another, or `Sec-Fetch-Site` says `cross-site` or
/// `same-site`), and a state-changing one must name the console's origin in `Origin` (as browsers always do for a
/// `fetch` that posts). Scripts use the admin API with an admin key, not the console's.
struct ConsoleRequestGuard: RouteMiddleware {
    let origin: String

    func handle(_ request: Request, context: LatchkeyRequestContext, next: RouteHandler) async throws -> Response {
        try check(request)
        return try await next(request, context)
    }

    func check(_ request: Request) throws(APIError) {
        let sentOrigin = request.headers[.origin]
        if let sentOrigin, sentOrigin != origin {
            throw APIError(.forbidden, "the console answers its own page only: Origin \(sentOrigin.debugDescription) is not \(origin)")
        }
        let sites = request.headers[values: CrossSiteRequestGuard.fetchSite].map { $0.lowercased() }
        if sites.contains(where: { $0 != "same-origin" && $0 != "none" }) {
            throw APIError(.forbidden, "the console answers its own page only (Sec-Fetch-Site: \(sites.joined(separator: ", ")))")
        }
        if request.changesState, sentOrigin == nil {
            throw APIError(.forbidden, "a change through the console must come from its page (no Origin)")
        }
    }
}

/// The console's CSRF token: derived from the operator's session token (which the page cannot read, an HttpOnly
/// cookie), handed to the page by `GET /console/api/session` (which another site cannot read), and required in
/// ``header`` on every change, compared in constant time.
enum ConsoleCSRF {
    static let header = HTTPField.Name(known: "X-Latchkey-CSRF")

    static func token(forSession session: String) -> String {
        Base64URL.encode(Array(Digest.sha256(Array("latchkey console csrf\u{0}\(session)".utf8)).prefix(24)))
    }

    /// Throws unless `request` carries the token of `session`.
    static func check(_ request: Request, session: String) throws(APIError) {
        guard let sent = request.headers[header], !sent.isEmpty else {
            throw APIError(.forbidden, "a change through the console needs its CSRF token (\(header.rawName))")
        }
        guard constantTimeEquals(Array(sent.utf8), Array(token(forSession: session).utf8)) else {
            throw APIError(.forbidden, "the console's CSRF token (\(header.rawName)) is not this session's; reload the console")
        }
    }
}

/// Lets a request through only with a live operator session in the console's cookie (never `Authorization`: an
/// admin key or a user's session is no operator's), and a change only with the session's CSRF token. Names the
/// operator as the request's actor, so every change it makes is the operator's event.
struct OperatorSessionAuthenticator: RouteMiddleware {
    let sessions: Sessions
    let cookies: ServiceCookies

    func handle(_ request: Request, context: LatchkeyRequestContext, next: RouteHandler) async throws -> Response {
        guard let token = request.cookieValue(named: cookies.sessionName), !token.isEmpty,
              let session = try await sessions.current(presented: [token])
        else {
            throw APIError(.unauthorized, "sign in to the console with your operator passkey")
        }
        if request.changesState { try ConsoleCSRF.check(request, session: token) }
        var context = context
        context.operatorSession = session
        context.logger[metadataKey: "operator"] = "\(session.user.username)"
        return try await next(request, context)
    }
}
