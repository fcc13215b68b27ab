import LatchkeyService
import NIOHTTP1

/// The headers that keep the page and the API from being framed, sniffed, scripted from elsewhere or leaking
/// referrers, on every reply (errors included). The page loads its script and style from files of its own origin
/// only, with nothing inline; `Strict-Transport-Security` is sent when the relying party's origins are https
/// (browsers ignore it over plain http).
struct SecurityHeaders: Sendable {
    /// Whether replies carry `Strict-Transport-Security`.
    let strictTransportSecurity: Bool

    /// Sets the headers on a reply.
    func apply(to headers: inout HTTPHeaders) {
        headers.add(contentsOf: strictTransportSecurity ? Self.withTransportSecurity : Self.common)
    }

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

    /// The headers, made once.
    private static let common: [(String, String)] = [
        ("Content-Security-Policy", contentSecurityPolicy), ("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"), ("Permissions-Policy", permissionsPolicy), ("Cross-Origin-Opener-Policy", "same-origin"),
    ]
    private static let withTransportSecurity = common + [("Strict-Transport-Security", strictTransportSecurity)]
}
