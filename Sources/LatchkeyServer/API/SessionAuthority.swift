import Foundation
import Hummingbird
import LatchkeyStore
import WebAuthn

/// Starts, finds and ends sign-in sessions. A session token is 32 random bytes handed to the client
/// (cookie and JSON); the store keeps only its SHA-256.
struct SessionAuthority: Sendable {
    static let cookieName = "latchkey_session"

    let store: any LatchkeyStore
    let lifetime: TimeInterval
    let secureCookies: Bool
    /// SameSite=None lets the FIDO conformance tool, on another origin, send the cookie back.
    let crossSiteCookies: Bool

    /// Creates a session for `userHandle` and returns its token.
    func start(for userHandle: [UInt8], now: Date = Date()) async throws -> String {
        let token = try SecureRandom.bytes(count: 32)
        try await store.createSession(SessionRecord(
            tokenHash: Digest.sha256(token), userHandle: userHandle, createdAt: now, expiresAt: now.addingTimeInterval(lifetime)))
        return Base64URL.encode(token)
    }

    /// The token the request carries: `Authorization: Bearer TOKEN` first, then the cookie.
    static func token(in request: Request) -> String? {
        if let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("bearer ") {
            let token = authorization.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
            return token.isEmpty ? nil : token
        }
        return request.cookies[cookieName]?.value
    }

    /// The live session the request carries, if any.
    func current(_ request: Request, now: Date = Date()) async throws -> SessionRecord? {
        guard let token = Self.token(in: request), let bytes = Base64URL.decode(token), bytes.count == 32 else { return nil }
        return try await store.session(tokenHash: Digest.sha256(bytes), now: now)
    }

    func end(_ request: Request) async throws {
        guard let token = Self.token(in: request), let bytes = Base64URL.decode(token) else { return }
        try await store.deleteSession(tokenHash: Digest.sha256(bytes))
    }

    func cookie(for token: String) -> Cookie {
        Cookie.make(name: Self.cookieName, value: token, maxAge: Int(lifetime), secure: secureCookies, crossSite: crossSiteCookies)
    }

    func clearingCookie() -> Cookie {
        Cookie.make(name: Self.cookieName, value: "", maxAge: 0, secure: secureCookies, crossSite: crossSiteCookies)
    }
}

extension Cookie {
    /// An HttpOnly cookie for the whole site, SameSite=Lax, or None (and Secure) for cross-site use.
    static func make(name: String, value: String, maxAge: Int, secure: Bool, crossSite: Bool) -> Cookie {
        let sameSite: SameSite = crossSite && secure ? .none : .lax
        return (try? Cookie.validated(
            name: name, value: value, maxAge: maxAge, path: "/", secure: secure, httpOnly: true, sameSite: sameSite))
            ?? Cookie(name: name, value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true)
    }
}
