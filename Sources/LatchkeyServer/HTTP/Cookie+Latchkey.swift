import LatchkeyService

extension Cookie {
    /// The cookie name to use: with the `__Host-` prefix when the cookie is Secure.
    static func name(_ base: String, secure: Bool) -> String {
        secure ? "__Host-" + base : base
    }

    /// An HttpOnly cookie for the whole site, SameSite=Lax, or None (and Secure) for cross-site use. A value no
    /// cookie can carry (none of Latchkey's: they are base64url) makes an empty cookie that expires at once.
    static func make(name: String, value: String, maxAge: Int, secure: Bool, crossSite: Bool) -> Cookie {
        let sameSite: SameSite = crossSite && secure ? .none : .lax
        return Cookie.validated(name: name, value: value, maxAge: maxAge, secure: secure, sameSite: sameSite)
            ?? Cookie(name: name, value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true, sameSite: nil)
    }
}

extension Request {
    /// The value of the first cookie named `name`: each `;`-separated part of each `Cookie` header, leading
    /// whitespace dropped, split at its first `=`. An empty value is `""`; callers treat it as no cookie.
    func cookieValue(named name: String) -> String? {
        for header in headers[values: .cookie] {
            for part in header.split(separator: ";", omittingEmptySubsequences: false) {
                let cookie = part.droppingLeadingOptionalWhitespace
                guard let equals = cookie.firstIndex(of: "="), cookie[..<equals] == name else { continue }
                return String(cookie[cookie.index(after: equals)...])
            }
        }
        return nil
    }
}
