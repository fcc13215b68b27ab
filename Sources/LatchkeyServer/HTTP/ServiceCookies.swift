import LatchkeyService
import LatchkeyStore
import WebAuthn

/// How this transport carries what the service hands out beside a reply: the session token in
/// `latchkey_session`, and each ceremony's challenge bindings in `latchkey_registration`, `latchkey_signin`,
/// `latchkey_device_key` or `latchkey_app_attest` (with the `__Host-` prefix over https, so no sibling domain can
/// set them). One cookie per ceremony kind lets a registration and a sign-in run side by side. SameSite=None
/// (over https) lets a caller on another origin, such as the FIDO conformance tool, send them back.
///
/// The console's operators carry theirs under another ``prefix`` (`latchkey_console_session`, …), so that a site
/// and its console on one host (cookies do not tell ports apart) never overwrite each other's, and in cookies only
/// (``acceptsBearer`` off), so that what the console's CSRF guard protects is all there is.
struct ServiceCookies: Sendable {
    let secure: Bool
    let crossSite: Bool
    let sessionLifetime: Int
    let challengeLifetime: Int
    var prefix = "latchkey"
    var acceptsBearer = true

    /// `latchkey_session`, or `__Host-latchkey_session` over https.
    var sessionName: String { Cookie.name(prefix + "_session", secure: secure) }

    /// The cookie that hands a new session's token to a browser.
    func session(_ token: String) -> Cookie {
        Cookie.make(name: sessionName, value: token, maxAge: sessionLifetime, secure: secure, crossSite: crossSite)
    }

    /// Expires the session cookie.
    func clearingSession() -> Cookie {
        Cookie.make(name: sessionName, value: "", maxAge: 0, secure: secure, crossSite: crossSite)
    }

    /// The session tokens `request` carries, in the order they are tried: `Authorization: Bearer` first, then the cookie.
    func sessionTokens(in request: Request) -> [String] {
        [acceptsBearer ? Self.bearerToken(in: request) : nil, request.cookieValue(named: sessionName)].compactMap { $0 }
    }

    /// The token in `Authorization: Bearer TOKEN` (the scheme in any case).
    static func bearerToken(in request: Request) -> String? {
        guard let authorization = request.headers[.authorization] else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].equalsIgnoringASCIICase("bearer") else { return nil }
        let token = parts[1].trimmingOptionalWhitespace
        return token.isEmpty ? nil : String(token)
    }

    /// The name of the cookie that holds the bindings of `kind`'s challenges.
    func ceremonyName(_ kind: CeremonyKind) -> String {
        let name = switch kind {
        case .registration: "_registration"
        case .signIn: "_signin"
        case .deviceKeyEnrollment, .deviceKeySignIn: "_device_key"
        case .appAttest: "_app_attest"
        }
        return Cookie.name(prefix + name, secure: secure)
    }

    /// The bindings of `kind` that `request`'s ceremony cookie holds, newest first, decoded (a part that is not
    /// base64url is empty: a cookie that is there but holds nothing usable still counts, as one that belongs to no
    /// challenge).
    func binding(_ kind: CeremonyKind, in request: Request) -> CeremonyBinding {
        let name = ceremonyName(kind)
        guard let cookie = request.cookieValue(named: name), !cookie.isEmpty else { return .none }
        return CeremonyBinding(
            carrier: "the \(name) cookie",
            values: cookie.split(separator: ".", omittingEmptySubsequences: false).map { Base64URL.decode(String($0)) ?? [] })
    }

    /// The ceremony cookie of `kind` holding `bindings`, for as long as a challenge lives.
    func ceremony(_ kind: CeremonyKind, holding bindings: [[UInt8]]) -> Cookie {
        Cookie.make(
            name: ceremonyName(kind), value: bindings.map(Base64URL.encode).joined(separator: "."), maxAge: challengeLifetime,
            secure: secure, crossSite: crossSite)
    }

    /// Expires a ceremony's binding cookie once it is answered.
    func clearingCeremony(_ kind: CeremonyKind) -> Cookie {
        Cookie.make(name: ceremonyName(kind), value: "", maxAge: 0, secure: secure, crossSite: crossSite)
    }
}
