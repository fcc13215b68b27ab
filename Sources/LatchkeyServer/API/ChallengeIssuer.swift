import Foundation
import Hummingbird
import LatchkeyStore
import WebAuthn

/// Issues single-use, expiring challenges and finds the pending ceremony a client answers, from the
/// challenge inside its clientDataJSON (so cookie-less clients work). The ceremony's cookie
/// (`latchkey_registration` or `latchkey_signin`), when the client sends it back, must belong to that
/// challenge; one cookie per ceremony kind lets a registration and a sign-in run side by side.
struct ChallengeIssuer: Sendable {
    let store: any LatchkeyStore
    let lifetime: TimeInterval
    let secureCookies: Bool
    let crossSiteCookies: Bool

    /// `latchkey_registration` or `latchkey_signin`, with the `__Host-` prefix over https.
    func cookieName(_ kind: CeremonyKind) -> String {
        Cookie.name(kind == .registration ? "latchkey_registration" : "latchkey_signin", secure: secureCookies)
    }

    /// A fresh challenge and the cookie that binds it to this client.
    struct Issued {
        let challenge: [UInt8]
        let cookie: Cookie
    }

    func issue(
        _ kind: CeremonyKind, userHandle: [UInt8]?, username: String?, displayName: String?,
        userVerification: UserVerificationRequirement, now: Date = Date()
    ) async throws -> Issued {
        let challenge = try SecureRandom.bytes(count: 32)
        let binding = try SecureRandom.bytes(count: 32)
        try await store.savePendingCeremony(PendingCeremony(
            challengeHash: Digest.sha256(challenge), kind: kind, userHandle: userHandle, username: username,
            displayName: displayName, userVerification: userVerification.rawValue,
            bindingHash: Digest.sha256(binding), expiresAt: now.addingTimeInterval(lifetime)))
        let cookie = Cookie.make(
            name: cookieName(kind), value: Base64URL.encode(binding), maxAge: Int(lifetime),
            secure: secureCookies, crossSite: crossSiteCookies)
        return Issued(challenge: challenge, cookie: cookie)
    }

    /// Consumes the ceremony the client data answers. Whatever happens next, the challenge is spent.
    /// What a consumed ceremony was issued for.
    struct Taken {
        let pending: PendingCeremony
        let challenge: [UInt8]
        let userVerification: UserVerificationRequirement
    }

    func take(_ kind: CeremonyKind, answeredBy clientData: CollectedClientData, request: Request, now: Date = Date()) async throws -> Taken {
        guard let challenge = Base64URL.decode(clientData.challenge), !challenge.isEmpty else {
            throw APIError.badRequest("clientDataJSON.challenge is not base64url")
        }
        guard let pending = try await store.takePendingCeremony(challengeHash: Digest.sha256(challenge)) else {
            throw APIError.badRequest("clientDataJSON.challenge does not match any pending ceremony: it is unknown, already used or expired")
        }
        guard pending.expiresAt > now else {
            throw APIError.badRequest("the challenge expired \(Int(now.timeIntervalSince(pending.expiresAt))) seconds ago; request new options")
        }
        guard pending.kind == kind else {
            throw APIError.badRequest("the challenge was issued for \(pending.kind == .registration ? "a registration" : "a sign-in"), not \(kind == .registration ? "a registration" : "a sign-in")")
        }
        if let cookie = request.cookies[cookieName(kind)]?.value, !cookie.isEmpty, let bindingHash = pending.bindingHash {
            guard let binding = Base64URL.decode(cookie), constantTimeEquals(Digest.sha256(binding), bindingHash) else {
                throw APIError.badRequest("the \(cookieName(kind)) cookie does not belong to this challenge")
            }
        }
        guard let userVerification = UserVerificationRequirement(rawValue: pending.userVerification) else {
            throw StoreError(.database, "pending ceremony has an unknown user-verification requirement \"\(pending.userVerification)\"")
        }
        return Taken(pending: pending, challenge: challenge, userVerification: userVerification)
    }

    /// An options reply: `status`, `errorMessage` and the options at the top level, plus the binding cookie.
    static func optionsResponse(_ options: [String: JSONValue], issued: Issued) -> Response {
        var response = JSONResponse.ok(options)
        response.setCookie(issued.cookie)
        return response
    }

    /// Expires a ceremony's binding cookie once it is answered.
    func clearingCookie(_ kind: CeremonyKind) -> Cookie {
        Cookie.make(name: cookieName(kind), value: "", maxAge: 0, secure: secureCookies, crossSite: crossSiteCookies)
    }
}
