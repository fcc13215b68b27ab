/// A `Set-Cookie` value (RFC 6265): a name and value of the characters the RFC allows, and the
/// attributes Latchkey's cookies use.
struct Cookie: Sendable, CustomStringConvertible {
    enum SameSite: String, Sendable {
        case lax = "Lax"
        case strict = "Strict"
        case none = "None"
    }

    let name: String
    let value: String
    let maxAge: Int
    let path: String
    let secure: Bool
    let httpOnly: Bool
    let sameSite: SameSite?

    /// The cookie, or nil when its name is not a token or its value holds a character a cookie cannot carry.
    static func validated(
        name: String, value: String, maxAge: Int, path: String = "/", secure: Bool, httpOnly: Bool = true, sameSite: SameSite?
    ) -> Cookie? {
        guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte), value.utf8.allSatisfy(isValueByte) else { return nil }
        return Cookie(name: name, value: value, maxAge: maxAge, path: path, secure: secure, httpOnly: httpOnly, sameSite: sameSite)
    }

    var description: String {
        var text = "\(name)=\(value); Max-Age=\(maxAge); Path=\(path)"
        if secure { text += "; Secure" }
        if httpOnly { text += "; HttpOnly" }
        if let sameSite { text += "; SameSite=\(sameSite.rawValue)" }
        return text
    }

    /// RFC 9110 token characters.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        guard byte > 0x20, byte < 0x7F else { return false }
        return !"()<>@,;:\\\"/[]?={}".utf8.contains(byte)
    }

    /// RFC 6265 cookie-octets: printable ASCII but `"`, `,`, `;` and `\`.
    private static func isValueByte(_ byte: UInt8) -> Bool {
        byte == 0x21 || (0x23...0x2B).contains(byte) || (0x2D...0x3A).contains(byte) || (0x3C...0x5B).contains(byte)
            || (0x5D...0x7E).contains(byte)
    }
}
