import Hummingbird

extension Cookie {
    /// The cookie name to use: with the `__Host-` prefix when the cookie is Secure.
    static func name(_ base: String, secure: Bool) -> String {
        secure ? "__Host-" + base : base
    }

    /// An HttpOnly cookie for the whole site, SameSite=Lax, or None (and Secure) for cross-site use.
    static func make(name: String, value: String, maxAge: Int, secure: Bool, crossSite: Bool) -> Cookie {
        let sameSite: SameSite = crossSite && secure ? .none : .lax
        return (try? Cookie.validated(
            name: name, value: value, maxAge: maxAge, path: "/", secure: secure, httpOnly: true, sameSite: sameSite))
            ?? Cookie(name: name, value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true)
    }
}
