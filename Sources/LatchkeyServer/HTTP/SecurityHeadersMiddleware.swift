import HTTPTypes
import Hummingbird
import LatchkeyService

/// Adds the headers that keep the page and the API from being framed, sniffed, scripted from
/// elsewhere or leaking referrers, on every reply (errors included). The page loads its script and
/// style from files of its own origin only, with nothing inline; `Strict-Transport-Security` is
/// sent when the relying party's origins are https (browsers ignore it over plain http).
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Whether replies carry `Strict-Transport-Security`.
    let strictTransportSecurity: Bool

    init(strictTransportSecurity: Bool = false) {
        self.strictTransportSecurity = strictTransportSecurity
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.contentSecurityPolicy] = SecurityHeaders.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[SecurityHeaders.xFrameOptions] = "DENY"
        response.headers[SecurityHeaders.referrerPolicy] = "no-referrer"
        response.headers[SecurityHeaders.permissionsPolicyName] = SecurityHeaders.permissionsPolicy
        response.headers[SecurityHeaders.crossOriginOpenerPolicy] = "same-origin"
        if strictTransportSecurity {
            response.headers[.strictTransportSecurity] = SecurityHeaders.strictTransportSecurity
        }
        return response
    }
}

/// The header names and values ``SecurityHeadersMiddleware`` sets, made once.
enum SecurityHeaders {
    /// Only this origin's own files; no plugins, no framing, no `<base>`, forms post here only.
    static let contentSecurityPolicy = [
        "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self'", "connect-src 'self'",
        "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
    ].joined(separator: "; ")
    /// WebAuthn for this origin only; the powerful features the page never uses, for nobody.
    static let permissionsPolicy = [
        "publickey-credentials-create=(self)", "publickey-credentials-get=(self)", "camera=()", "microphone=()",
        "geolocation=()", "payment=()", "usb=()",
    ].joined(separator: ", ")
    /// Two years, as the HSTS preload list asks.
    static let strictTransportSecurity = "max-age=63072000"

    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let permissionsPolicyName = HTTPField.Name("Permissions-Policy")!
    static let crossOriginOpenerPolicy = HTTPField.Name("Cross-Origin-Opener-Policy")!
}
