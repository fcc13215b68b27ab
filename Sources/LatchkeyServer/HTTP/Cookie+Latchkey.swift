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
    /// Read as bytes: names compare byte for byte (as RFC 6265 has them), with no split or copy but the value's.
    func cookieValue(named name: String) -> String? {
        var name = name
        return name.withUTF8 { name in
            for header in headers[values: .cookie] {
                var header = header
                if let value = header.withUTF8({ Self.cookieValue(named: name, in: $0) }) { return value }
            }
            return nil
        }
    }

    private static func cookieValue(named name: UnsafeBufferPointer<UInt8>, in header: UnsafeBufferPointer<UInt8>) -> String? {
        let semicolon = UInt8(ascii: ";"), equals = UInt8(ascii: "="), space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")
        var start = 0
        while start <= header.count {
            var end = start
            while end < header.count, header[end] != semicolon { end += 1 }
            var first = start
            while first < end, header[first] == space || header[first] == tab { first += 1 }
            let equal = first + name.count
            if equal < end, header[equal] == equals, header[first..<equal].elementsEqual(name) {
                return String(decoding: UnsafeBufferPointer(rebasing: header[(equal + 1)..<end]), as: UTF8.self)
            }
            start = end + 1
        }
        return nil
    }
}
