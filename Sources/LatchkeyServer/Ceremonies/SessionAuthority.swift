import Foundation
import Hummingbird
import LatchkeyService
import LatchkeyStore
import WebAuthn

/// Makes, finds and ends sign-in sessions. A session token is 32 random bytes handed to the client
/// (cookie and JSON); the store keeps only its SHA-256.
struct SessionAuthority: Sendable {
    let store: any LatchkeyStore
    let lifetime: TimeInterval
    let secureCookies: Bool
    /// SameSite=None lets the FIDO conformance tool, on another origin, send the cookie back.
    let crossSiteCookies: Bool

    /// `latchkey_session`, or `__Host-latchkey_session` over https so no sibling domain can set it.
    var cookieName: String { Cookie.name("latchkey_session", secure: secureCookies) }

    /// A new session for `userHandle`, not yet stored: the token for the client and the record.
    func make(for userHandle: [UInt8], now: Date = Date()) throws -> (token: String, record: SessionRecord) {
        let token = try SecureRandom.bytes(count: 32)
        let record = SessionRecord(
            tokenHash: Digest.sha256(token), userHandle: userHandle, createdAt: now, expiresAt: now.addingTimeInterval(lifetime))
        return (Base64URL.encode(token), record)
    }

    /// The token in `Authorization: Bearer TOKEN` (the scheme in any case).
    static func bearerToken(in request: Request) -> String? {
        guard let authorization = request.headers[.authorization] else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    /// The hashes of the tokens the request carries: the bearer token first, then the cookie.
    func tokenHashes(in request: Request) -> [[UInt8]] {
        [Self.bearerToken(in: request), request.cookieValue(named: cookieName)]
            .compactMap { $0.flatMap(Base64URL.decode) }
            .filter { $0.count == 32 }
            .map(Digest.sha256)
    }

    /// The live session the request carries, with its user, if any (bearer token first).
    func current(_ request: Request, now: Date = Date()) async throws -> SessionWithUser? {
        guard let hash = tokenHashes(in: request).first, let found = try await store.session(tokenHash: hash, now: now),
              !found.user.disabled
        else { return nil }
        return found
    }

    /// Ends every session the request carries, recording `events` when one was live.
    func end(_ request: Request, recording events: [SecurityEvent] = []) async throws {
        let hashes = tokenHashes(in: request)
        if !hashes.isEmpty { try await store.deleteSessions(tokenHashes: hashes, recording: events) }
    }

    func cookie(for token: String) -> Cookie {
        Cookie.make(name: cookieName, value: token, maxAge: Int(lifetime), secure: secureCookies, crossSite: crossSiteCookies)
    }

    func clearingCookie() -> Cookie {
        Cookie.make(name: cookieName, value: "", maxAge: 0, secure: secureCookies, crossSite: crossSiteCookies)
    }
}
