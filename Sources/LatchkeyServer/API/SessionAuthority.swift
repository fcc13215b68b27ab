import Foundation
import Hummingbird
import LatchkeyStore
import WebAuthn

/// Starts, finds and ends sign-in sessions. A session token is 32 random bytes handed to the client
/// (cookie and JSON); the store keeps only its SHA-256.
struct SessionAuthority: Sendable {
    let store: any LatchkeyStore
    let lifetime: TimeInterval
    let secureCookies: Bool
    /// SameSite=None lets the FIDO conformance tool, on another origin, send the cookie back.
    let crossSiteCookies: Bool

    /// `latchkey_session`, or `__Host-latchkey_session` over https so no sibling domain can set it.
    var cookieName: String { Cookie.name("latchkey_session", secure: secureCookies) }

    /// Creates a session for `userHandle` and returns its token, ending any session `request` carried.
    func start(for userHandle: [UInt8], replacing request: Request, now: Date = Date()) async throws -> String {
        try await end(request)
        let token = try SecureRandom.bytes(count: 32)
        try await store.createSession(SessionRecord(
            tokenHash: Digest.sha256(token), userHandle: userHandle, createdAt: now, expiresAt: now.addingTimeInterval(lifetime)))
        return Base64URL.encode(token)
    }

    /// The token the request carries in `Authorization: Bearer TOKEN`.
    static func bearerToken(in request: Request) -> String? {
        guard let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("bearer ") else { return nil }
        let token = authorization.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    /// The tokens the request carries: the bearer token first, then the cookie.
    func tokens(in request: Request) -> [[UInt8]] {
        [Self.bearerToken(in: request), request.cookies[cookieName]?.value]
            .compactMap { $0.flatMap(Base64URL.decode) }
            .filter { $0.count == 32 }
    }

    /// The live session the request carries, if any (bearer token first).
    func current(_ request: Request, now: Date = Date()) async throws -> SessionRecord? {
        guard let token = tokens(in: request).first else { return nil }
        return try await store.session(tokenHash: Digest.sha256(token), now: now)
    }

    /// Ends every session the request carries.
    func end(_ request: Request) async throws {
        for token in tokens(in: request) {
            try await store.deleteSession(tokenHash: Digest.sha256(token))
        }
    }

    func cookie(for token: String) -> Cookie {
        Cookie.make(name: cookieName, value: token, maxAge: Int(lifetime), secure: secureCookies, crossSite: crossSiteCookies)
    }

    func clearingCookie() -> Cookie {
        Cookie.make(name: cookieName, value: "", maxAge: 0, secure: secureCookies, crossSite: crossSiteCookies)
    }
}
