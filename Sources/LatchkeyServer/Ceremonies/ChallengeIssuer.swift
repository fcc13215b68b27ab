import Foundation
import Hummingbird
import LatchkeyService
import LatchkeyStore
import WebAuthn

/// Issues single-use, expiring challenges and checks the pending ceremony a client answers, found
/// from the challenge inside its clientDataJSON (so cookie-less clients work). The ceremony's
/// cookie (`latchkey_registration`, `latchkey_signin` or `latchkey_device_key`), when the client
/// sends it back, must hold the binding of that challenge. One cookie per ceremony kind lets a
/// registration and a sign-in run side by side, and each holds the bindings of the last
/// ``bindingsPerCookie`` challenges of its kind, so that ceremonies of one kind may overlap too (an
/// app's AutoFill request beside the one its button starts, two tabs).
struct ChallengeIssuer: Sendable {
    let store: any LatchkeyStore
    let lifetime: TimeInterval
    let secureCookies: Bool
    let crossSiteCookies: Bool
    /// Bounds the challenges pending per client address and in all.
    let caps: PendingChallengeCaps

    /// The most challenge bindings one ceremony cookie holds, newest first.
    static let bindingsPerCookie = 4

    /// `latchkey_registration`, `latchkey_signin` or `latchkey_device_key`, with the `__Host-` prefix over https.
    func cookieName(_ kind: CeremonyKind) -> String {
        let name = switch kind {
        case .registration: "latchkey_registration"
        case .authentication: "latchkey_signin"
        case .deviceKeyEnrolment, .deviceKeySignIn: "latchkey_device_key"
        case .appAttest: "latchkey_app_attest"
        }
        return Cookie.name(name, secure: secureCookies)
    }

    /// A fresh challenge and the cookie that binds it to this client.
    struct Issued {
        let challenge: [UInt8]
        let cookie: Cookie

        /// The options reply for this challenge, carrying its cookie.
        func response(_ options: some Encodable) -> Response {
            var response = JSONResponse.make(options)
            response.setCookie(cookie)
            return response
        }
    }

    /// Issues a challenge to `client`, unless it or the server has too many pending (429, 503). Its
    /// cookie keeps the bindings of the newest challenges of this kind that `request` carried.
    func issue(
        _ kind: CeremonyKind, for request: Request, userHandle: [UInt8]?, username: String?, displayName: String?,
        userVerification: UserVerificationRequirement, client: ClientAddress, enrollmentTicketHash: [UInt8]? = nil,
        conditional: Bool = false, nonce: String? = nil, now: Date = Date()
    ) async throws -> Issued {
        let challenge = try SecureRandom.bytes(count: 32)
        let binding = try SecureRandom.bytes(count: 32)
        let challengeHash = Digest.sha256(challenge)
        try await keep(
            PendingCeremony(
                challengeHash: challengeHash, kind: kind, userHandle: userHandle, username: username,
                displayName: displayName, userVerification: userVerification,
                bindingHash: Digest.sha256(binding), expiresAt: now.addingTimeInterval(lifetime),
                enrollmentTicketHash: enrollmentTicketHash, conditional: conditional, nonce: nonce),
            for: client, now: now)
        let earlier = self.bindings(kind, in: request).filter { $0.count == binding.count }
        let bindings = [binding] + earlier.prefix(Self.bindingsPerCookie - 1)
        let cookie = Cookie.make(
            name: cookieName(kind), value: bindings.map(Base64URL.encode).joined(separator: "."), maxAge: Int(lifetime),
            secure: secureCookies, crossSite: crossSiteCookies)
        return Issued(challenge: challenge, cookie: cookie)
    }

    /// Puts back a challenge taken for a request that turned out to lack what only the caller could add (its session):
    /// nothing was decided with it, so the same challenge, with its own expiry, answers the request sent again with it.
    /// Of two such requests at once, only one took the challenge; the other was refused as for a spent one. It counts
    /// in `client`'s caps again, as when it was issued; when they are full it stays spent.
    func giveBack(_ pending: PendingCeremony, client: ClientAddress, now: Date = Date()) async throws {
        do {
            try await keep(pending, for: client, now: now)
        } catch let refused as APIError where refused.status == .tooManyRequests || refused.status == .serviceUnavailable {
            return
        }
    }

    /// Counts `ceremony`'s challenge in `client`'s caps (429 or 503 when they are full) and stores it.
    private func keep(_ ceremony: PendingCeremony, for client: ClientAddress, now: Date) async throws {
        try await reserve(ceremony.challengeHash, for: client, expiresAt: ceremony.expiresAt, now: now)
        do {
            try await store.savePendingCeremony(ceremony)
        } catch {
            caps.release(ceremony.challengeHash)
            throw error
        }
    }

    /// The challenge the client answered, decoded from its client data.
    static func challenge(answeredBy clientData: CollectedClientData) throws -> [UInt8] {
        guard let challenge = clientData.challengeBytes, !challenge.isEmpty else {
            throw APIError.badRequest("clientDataJSON.challenge is not base64url")
        }
        return challenge
    }

    /// Consumes the ceremony `challenge` answers and checks it. Whatever happens next, the
    /// challenge is spent. `member` names where the request carried it, for the error.
    func take(
        _ kind: CeremonyKind, challenge: [UInt8], request: Request, member: String = "clientDataJSON.challenge", now: Date = Date()
    ) async throws -> PendingCeremony {
        let pending = try await store.takePendingCeremony(challengeHash: Digest.sha256(challenge))
        return try check(pending, kind: kind, request: request, member: member, now: now)
    }

    /// Checks a consumed ceremony: it existed, has not expired, is of `kind`, and the ceremony
    /// cookie, when sent, holds the binding issued with it.
    func check(
        _ pending: PendingCeremony?, kind: CeremonyKind, request: Request, member: String = "clientDataJSON.challenge", now: Date = Date()
    ) throws -> PendingCeremony {
        guard let pending else {
            throw APIError.badRequest("\(member) does not match any pending ceremony: it is unknown, already used or expired")
        }
        caps.release(pending.challengeHash)
        guard pending.expiresAt > now else {
            throw APIError.badRequest("the challenge expired \(Int(now.timeIntervalSince(pending.expiresAt))) seconds ago; request new options")
        }
        guard pending.kind == kind else {
            throw APIError.badRequest("the challenge was issued for \(Self.article(pending.kind)), not \(Self.article(kind))")
        }
        let bindings = self.bindings(kind, in: request)
        if !bindings.isEmpty, let bindingHash = pending.bindingHash {
            guard bindings.contains(where: { constantTimeEquals(Digest.sha256($0), bindingHash) }) else {
                throw APIError.badRequest("the \(cookieName(kind)) cookie does not belong to this challenge")
            }
        }
        return pending
    }

    /// The bindings the ceremony cookie of `kind` in `request` holds, newest first, decoded (a part
    /// that is not base64url is empty: a cookie that is there but holds nothing usable still counts,
    /// as one that belongs to no challenge).
    private func bindings(_ kind: CeremonyKind, in request: Request) -> [[UInt8]] {
        guard let cookie = request.cookieValue(named: cookieName(kind)), !cookie.isEmpty else { return [] }
        return cookie.split(separator: ".", omittingEmptySubsequences: false).map { Base64URL.decode(String($0)) ?? [] }
    }

    /// Counts the challenge in the caps. A full cap may be full of challenges another instance
    /// answered: the store says which are gone, and the caps try once more without them.
    private func reserve(_ challengeHash: [UInt8], for client: ClientAddress, expiresAt: Date, now: Date) async throws {
        let refused: PendingChallengeCaps.Refusal
        do throws(PendingChallengeCaps.Refusal) {
            return try caps.reserve(challengeHash, for: client, expiresAt: expiresAt, now: now)
        } catch {
            refused = error
        }
        let checked = caps.challengesToCheck(for: refused, now: now)
        guard !checked.isEmpty, caps.forget(checked, except: try await store.pendingChallenges(among: checked), now: now) > 0 else {
            throw refusal(refused)
        }
        do throws(PendingChallengeCaps.Refusal) {
            try caps.reserve(challengeHash, for: client, expiresAt: expiresAt, now: now)
        } catch {
            throw refusal(error)
        }
    }

    /// The reply to a challenge the caps refused: 429 for one client's, 503 for the server's.
    private func refusal(_ refusal: PendingChallengeCaps.Refusal) -> APIError {
        switch refusal {
        case .client(let client, let limit):
            APIError(
                .tooManyRequests,
                "\(client) has \(limit) challenges pending already; answer them, or wait for them to expire, before asking for more",
                headers: [.retryAfter: String(min(Int(lifetime), 60))])
        case .total(let limit):
            APIError(
                .serviceUnavailable, "this server has \(limit) challenges pending, as many as it keeps; try again shortly",
                headers: [.retryAfter: "10"])
        }
    }

    private static func article(_ kind: CeremonyKind) -> String {
        switch kind {
        case .registration: "a registration"
        case .authentication: "a sign-in"
        case .deviceKeyEnrolment: "a device key enrolment"
        case .deviceKeySignIn: "a device key sign-in"
        case .appAttest: "App Attest"
        }
    }

    /// Expires a ceremony's binding cookie once it is answered.
    func clearingCookie(_ kind: CeremonyKind) -> Cookie {
        Cookie.make(name: cookieName(kind), value: "", maxAge: 0, secure: secureCookies, crossSite: crossSiteCookies)
    }
}
