import HTTPTypes
import LatchkeyService
import LatchkeyStore
import NIOCore
import WebAuthn

/// What every route shares: the relying party's service, the cookies that carry its values, and the
/// translations every route makes the same way: the request as the service's ``Caller``, a ceremony's binding
/// cookie, and the replies that carry options or a sign-in.
struct ServiceRoutes: Sendable {
    let service: RelyingPartyService
    let cookies: ServiceCookies

    init(service: RelyingPartyService) {
        self.service = service
        cookies = ServiceCookies(
            secure: service.configuration.usesHTTPS, crossSite: service.policy.crossSiteCookies,
            sessionLifetime: service.configuration.sessionTimeout, challengeLifetime: service.configuration.challengeTimeout)
    }

    init(service: RelyingPartyService, cookies: ServiceCookies) {
        self.service = service
        self.cookies = cookies
    }

    /// The request as the service sees its caller.
    func caller(_ request: Request, _ context: LatchkeyRequestContext) -> Caller {
        Caller(
            identity: context.identity, sessionTokens: cookies.sessionTokens(in: request), client: context.clientAddress,
            origin: context.eventOrigin(request), logger: context.logger)
    }

    /// The caller of a route that is for signed-in users only: not signed in is refused before anything else is read.
    func signedInCaller(_ request: Request, _ context: LatchkeyRequestContext) throws -> Caller {
        guard context.identity != nil else { throw APIError(ServiceError.notSignedIn) }
        return caller(request, context)
    }

    /// The bindings of `kind` the request's ceremony cookie holds.
    func binding(_ kind: CeremonyKind, _ request: Request) -> CeremonyBinding {
        cookies.binding(kind, in: request)
    }

    /// What App Attest reads of a request: its header and exact body.
    func appAttestProof(_ request: Request, body: ByteBuffer) -> AppAttestProof {
        guard service.appAttest.requirement != .off else { return AppAttestProof(header: nil, body: [], binding: .none) }
        return AppAttestProof(
            header: request.headers[AppAttestRoutes.header], body: Array(buffer: body), binding: binding(.appAttest, request))
    }

    /// Options, with the ceremony cookie that holds their challenge's binding.
    func reply<Options: Encodable & Sendable>(_ issued: IssuedOptions<Options>, _ kind: CeremonyKind) -> Response {
        var response = JSONResponse.make(Reply(issued.options))
        response.setCookie(cookies.ceremony(kind, holding: issued.bindings))
        return response
    }

    /// How every ceremony that signs a user in answers: who signed in, the session token and the sign-in token, the
    /// ceremony's cookie cleared and the session's set.
    func reply(_ signedIn: SignedIn, answering kind: CeremonyKind) -> Response {
        let response = JSONResponse.make(SignInReply(
            username: signedIn.user.username, displayName: signedIn.user.displayName, credentialId: Base64URLBytes(signedIn.credentialID),
            userVerified: signedIn.userVerified, sessionToken: signedIn.session.token, idToken: signedIn.idToken))
        return ending(kind, with: response, session: signedIn.session.token)
    }

    /// `response` as the last reply of a `kind` ceremony: its cookie cleared, and the session's set when the ceremony
    /// started one (a sign-in always; a registration when it was the account's first, or under a ticket).
    func ending(_ kind: CeremonyKind, with response: Response, session token: String?) -> Response {
        var response = response
        response.setCookie(cookies.clearingCeremony(kind))
        if let token { response.setCookie(cookies.session(token)) }
        return response
    }

    /// The key or credential ID a path parameter names, as bytes; one that is not base64url names nothing (empty).
    static func id(_ parameter: String, in context: LatchkeyRequestContext) -> [UInt8] {
        context.parameters.get(parameter).flatMap(Base64URL.decode) ?? []
    }
}

/// The App Attest request header, as the transport reads it.
enum AppAttestRoutes {
    static let header = HTTPField.Name(known: AppAttestKeys.header)
}
