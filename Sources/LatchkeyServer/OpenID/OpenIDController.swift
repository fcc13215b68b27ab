import Foundation
import HTTPTypes
import LatchkeyJSON
import LatchkeyService
import NIOCore
import NIOHTTP1
import WebAuthn

/// The tenant's OpenID provider over HTTP: discovery, the authorization endpoint with its pages, and the back-channel
/// endpoints (token, userinfo, revocation, introspection), which answer in OAuth's error format, and RP-initiated
/// logout. Parameters are read as forms (`+` a space), from the query or, for a POST, the body.
struct OpenIDController: Sendable {
    let routes: ServiceRoutes

    private var provider: OpenIDProvider { routes.service.openID }

    /// `/oidc/...` under `oidc` (the session resolved for the browser's endpoints), discovery under `wellKnown`.
    func addRoutes(browser: RouteGroup, backChannel: RouteGroup, wellKnown: RouteGroup) {
        wellKnown.get("openid-configuration", use: discovery)
        wellKnown.get("oauth-authorization-server", use: discovery)
        browser.get("authorize", use: authorize)
        browser.post("authorize", use: authorize)
        browser.get("logout", use: logout)
        browser.post("logout", use: logout)
        browser.get("device", use: device)
        browser.post("device", use: device)
        backChannel.post("token", use: token)
        backChannel.get("userinfo", use: userInfo)
        backChannel.post("userinfo", use: userInfo)
        backChannel.post("revoke", use: revoke)
        backChannel.post("introspect", use: introspect)
        backChannel.post("device_authorization", use: deviceAuthorization)
    }

    /// The paths the cross-site guard lets through: clients post to them from their own origins (a form to the
    /// authorization endpoint, a page's token request), and none acts on a cookie alone.
    /// The device page is not among them: only its own form posts to it.
    static let crossSitePaths: Set<String> = [
        "/oidc/authorize", "/oidc/token", "/oidc/userinfo", "/oidc/revoke", "/oidc/introspect", "/oidc/device_authorization",
    ]

    @Sendable func discovery(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        var response = JSONResponse.make(provider.discoveryDocument)
        response.headers.replaceOrAdd(name: "Cache-Control", value: "public, max-age=300")
        return response
    }

    // MARK: Browser

    @Sendable func authorize(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let parameters: AuthorizationParameters
        do {
            parameters = AuthorizationParameters(try Self.parameters(of: request).all)
        } catch {
            return OpenIDPages.error("\(error)", rpName: routes.service.relyingParty.name, status: .badRequest)
        }
        let rpName = routes.service.relyingParty.name
        switch try await provider.authorize(parameters, session: context.identity, origin: context.eventOrigin(request)) {
        case .refused(let message):
            context.logger.info("authorization refused", metadata: ["errorMessage": .quoted(message)])
            return OpenIDPages.error(message, rpName: rpName, status: .badRequest)
        case .redirect(let location):
            // 303 after a POST, so the browser does not post the form again to the client (RFC 9700 §4.12).
            return Response(status: request.method == .POST ? .seeOther : .found, headers: [
                "Location": location, "Cache-Control": "no-store",
            ])
        case .signIn(let prompt):
            return OpenIDPages.signIn(prompt, rpName: rpName)
        case .consent(let prompt):
            return OpenIDPages.consent(prompt, rpName: rpName)
        case .denied(let message):
            return OpenIDPages.error(message, rpName: rpName, status: .forbidden)
        }
    }

    @Sendable func logout(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let parameters: AuthorizationParameters
        do {
            parameters = AuthorizationParameters(try Self.parameters(of: request).all)
        } catch {
            return OpenIDPages.error("\(error)", rpName: routes.service.relyingParty.name, status: .badRequest)
        }
        // The page's own button posts `confirm`; the cross-site guard keeps other sites' forms out.
        let confirmed = request.method == .POST && parameters["confirm"] == "yes"
        let outcome = try await provider.logout(
            parameters, session: context.identity, confirmed: confirmed, caller: routes.caller(request, context))
        let rpName = routes.service.relyingParty.name
        var response: Response
        switch outcome {
        case .redirect(let location):
            response = Response(status: request.method == .POST ? .seeOther : .found, headers: ["Location": location, "Cache-Control": "no-store"])
        case .signedOut:
            response = OpenIDPages.signedOut(rpName: rpName)
        case .confirm(let reason):
            if context.identity == nil { return OpenIDPages.signedOut(rpName: rpName) }
            return OpenIDPages.confirmLogout(reason: reason, rpName: rpName)
        }
        response.setCookie(routes.cookies.clearingSession())
        return response
    }

    /// The device page (RFC 8628's verification URI): the person's user code, a passkey sign-in, and their answer,
    /// which only this page's own form posts (the cross-site guard keeps other sites' forms out, and the answer carries
    /// a token bound to the session).
    @Sendable func device(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let parameters: [String: String]
        do {
            parameters = Dictionary(try Self.parameters(of: request).all, uniquingKeysWith: { first, _ in first })
        } catch {
            return OpenIDPages.error("\(error)", rpName: routes.service.relyingParty.name, status: .badRequest)
        }
        let rpName = routes.service.relyingParty.name
        var answer: (decision: String, token: String)?
        if request.method == .POST, let decision = parameters["decision"] {
            guard decision == "approve" || decision == "deny" else {
                return OpenIDPages.deviceCode(problem: "The answer is approve or deny.", rpName: rpName)
            }
            answer = (decision, parameters["answer"] ?? "")
        }
        switch try await provider.devicePage(
            userCode: parameters["user_code"], answer: answer, session: context.identity, origin: context.eventOrigin(request))
        {
        case .enterCode(let problem):
            return OpenIDPages.deviceCode(problem: problem, rpName: rpName)
        case .signIn(let prompt):
            return OpenIDPages.signIn(prompt, rpName: rpName)
        case .confirm(let confirmation):
            return OpenIDPages.deviceConfirmation(confirmation, rpName: rpName)
        case .denied(let message):
            return OpenIDPages.error(message, rpName: rpName, status: .forbidden)
        case .decided(let approved, let clientName):
            return OpenIDPages.deviceDecided(approved: approved, clientName: clientName, rpName: rpName)
        }
    }

    // MARK: Back channel

    @Sendable func deviceAuthorization(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        try await answering(request) { form, credentials in
            JSONResponse.make(DeviceAuthorizationReply(started: try await provider.startDeviceAuthorization(form, credentials: credentials)))
        }
    }

    @Sendable func token(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        try await answering(request) { form, credentials in
            let issued = try await provider.token(form, credentials: credentials, origin: context.eventOrigin(request))
            return JSONResponse.make(TokenReply(issued))
        }
    }

    @Sendable func userInfo(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        do {
            var token = ServiceCookies.bearerToken(in: request)
            if token == nil, request.method == .POST, request.headers[.contentType] != nil { token = try Self.form(request)["access_token"] }
            guard let token else {
                // No credentials at all: the scheme, and no error code (RFC 6750 §3.1).
                var response = JSONResponse.make(
                    OAuthErrorReply(error: OAuthError.Code.invalidToken.rawValue, errorDescription: "send the access token: Authorization: Bearer TOKEN"),
                    status: .unauthorized)
                response.headers.add(name: "WWW-Authenticate", value: "Bearer realm=\"latchkey\"")
                return response
            }
            let info = try await provider.userInfo(accessToken: token)
            return JSONResponse.make(UserInfoReply(info))
        } catch let error as OAuthError {
            return Self.failure(error, bearer: true)
        } catch let error as APIError {
            return Self.failure(OAuthError(.invalidRequest, error.message), bearer: true)
        }
    }

    @Sendable func revoke(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        try await answering(request) { form, credentials in
            try await provider.revoke(form, credentials: credentials, origin: context.eventOrigin(request))
            return Response(status: .ok, headers: ["Cache-Control": "no-store"])
        }
    }

    @Sendable func introspect(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        try await answering(request) { form, credentials in
            JSONResponse.make(IntrospectionReply(try await provider.introspect(form, credentials: credentials), issuer: provider.issuer))
        }
    }

    /// Reads a back-channel POST's form and client credentials, runs `body`, and answers its ``OAuthError`` in
    /// OAuth's format.
    private func answering(
        _ request: Request, _ body: ([String: String], OpenIDProvider.ClientCredentials) async throws -> Response
    ) async throws -> Response {
        do {
            let form = try Self.form(request)
            var credentials = OpenIDProvider.ClientCredentials(clientID: form["client_id"], secret: form["client_secret"])
            if let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("basic ") {
                guard form["client_secret"] == nil else {
                    throw OAuthError(.invalidRequest, "authenticate the client one way: HTTP Basic or client_secret, not both")
                }
                let (id, secret) = try Self.basicCredentials(authorization)
                if let formID = form["client_id"], formID != id { throw OAuthError(.invalidClient, "client_id is not the one HTTP Basic names") }
                credentials = .init(clientID: id, secret: secret)
            }
            return try await body(form, credentials)
        } catch let error as OAuthError {
            return Self.failure(error)
        }
    }

    // MARK: Reading

    private struct MalformedRequest: Error, CustomStringConvertible {
        let description: String
    }

    /// The parameters of a browser's request: the query of a GET, the form of a POST.
    private static func parameters(of request: Request) throws -> Parameters {
        guard request.method == .POST else { return request.uri.query.map(Parameters.form) ?? Parameters() }
        do {
            return try formParameters(request)
        } catch {
            throw MalformedRequest(description: error.message)
        }
    }

    /// A POST's form, each name once (RFC 6749 §3.2): `invalid_request` otherwise.
    private static func form(_ request: Request) throws -> [String: String] {
        let parameters: Parameters
        do {
            parameters = try formParameters(request)
        } catch {
            throw OAuthError(.invalidRequest, error.message)
        }
        var form: [String: String] = [:]
        for (name, value) in parameters.all where !value.isEmpty {
            guard form[name] == nil else { throw OAuthError(.invalidRequest, "\(name.prefix(40)) is given more than once") }
            form[name] = value
        }
        return form
    }

    private static func formParameters(_ request: Request) throws(APIError) -> Parameters {
        let media = request.headers[.contentType].map { $0.prefix { $0 != ";" }.trimmingOptionalWhitespace }
        guard let media, media.equalsIgnoringASCIICase("application/x-www-form-urlencoded") else {
            throw APIError(.unsupportedMediaType, "send the parameters as application/x-www-form-urlencoded")
        }
        guard let text = request.body.getString(at: request.body.readerIndex, length: request.body.readableBytes) else {
            throw APIError(.badRequest, "the form is not UTF-8")
        }
        return Parameters.form(Substring(text))
    }

    /// The client ID and secret of `Authorization: Basic`, each form-urlencoded first (RFC 6749 §2.3.1).
    private static func basicCredentials(_ header: String) throws -> (String, String) {
        let encoded = header.dropFirst("basic ".count).trimmingOptionalWhitespace
        guard let bytes = Data(base64Encoded: String(encoded)), let decoded = String(validating: bytes, as: UTF8.self),
              let colon = decoded.utf8.firstIndex(of: UInt8(ascii: ":"))
        else { throw OAuthError(.invalidClient, "the Authorization: Basic header is not base64 of client_id:client_secret") }
        let decode = { (part: Substring) throws -> String in
            let spaced = String(decoding: part.utf8.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
            guard let text = spaced.utf8.contains(UInt8(ascii: "%")) ? spaced.removingPercentEncodingStrictly() : spaced else {
                throw OAuthError(.invalidClient, "the Authorization: Basic credentials are not form-encoded (RFC 6749 §2.3.1)")
            }
            return text
        }
        return (try decode(decoded[..<colon]), try decode(decoded[decoded.utf8.index(after: colon)...]))
    }

    // MARK: Replies

    /// An OAuth error reply (RFC 6749 §5.2, RFC 6750 §3), with Latchkey's `status` and `errorMessage` beside it.
    static func failure(_ error: OAuthError, bearer: Bool = false) -> Response {
        let status: HTTPResponseStatus = switch error.code {
        case .invalidClient, .invalidToken: .unauthorized
        case .insufficientScope: .forbidden
        default: .badRequest
        }
        var response = JSONResponse.make(OAuthErrorReply(error: error.code.rawValue, errorDescription: error.message), status: status)
        if bearer {
            response.headers.add(name: "WWW-Authenticate", value: "Bearer error=\"\(error.code.rawValue)\"")
        } else if error.code == .invalidClient {
            // A 401 names the scheme that would do (RFC 9110 §15.5.2), whichever way the client tried.
            response.headers.add(name: "WWW-Authenticate", value: "Basic realm=\"latchkey\"")
        }
        response.headers.add(name: "Pragma", value: "no-cache")
        return response
    }
}
