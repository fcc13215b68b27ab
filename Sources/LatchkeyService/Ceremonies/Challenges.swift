import Foundation
import LatchkeyStore
import Logging
import WebAuthn

/// The one owner of a ceremony's challenge (WebAuthn §13.4.3): issued as 32 random bytes with a
/// binding for the client that asked, kept as its SHA-256 until it expires, and answered once.
///
/// A client answers with the challenge inside its clientDataJSON, so cookie-less clients (apps,
/// scripts) find their ceremony by the challenge alone; a client that keeps the binding (a browser's
/// ceremony cookie) must present one issued with that challenge. A binding carrier holds the
/// bindings of the last ``bindingsPerCarrier`` challenges of its kind, so that ceremonies of one kind
/// may overlap (an app's AutoFill request beside the one its button starts, two tabs).
package struct Challenges: Sendable {
    package let store: any LatchkeyStore
    /// How long a challenge may be answered.
    package let lifetime: TimeInterval
    /// Bounds the challenges pending per client address and in all.
    package let caps: PendingChallengeCaps

    /// The most challenge bindings one carrier holds, newest first.
    package static let bindingsPerCarrier = 4

    package init(store: any LatchkeyStore, lifetime: TimeInterval, caps: PendingChallengeCaps) {
        self.store = store
        self.lifetime = lifetime
        self.caps = caps
    }

    /// A fresh challenge, and the bindings its carrier is to hold from now on: the new one first, then the
    /// newest of those the client presented.
    package struct Issued: Sendable {
        package let challenge: [UInt8]
        package let bindings: [[UInt8]]
    }

    /// What a ceremony is issued for, beside its kind.
    package struct Purpose: Sendable {
        package var userHandle: [UInt8]?
        package var username: String?
        package var displayName: String?
        package var userVerification: UserVerificationRequirement
        package var enrollmentTicketHash: [UInt8]?
        package var conditional = false
        package var nonce: String?

        package init(
            userHandle: [UInt8]? = nil, username: String? = nil, displayName: String? = nil,
            userVerification: UserVerificationRequirement, enrollmentTicketHash: [UInt8]? = nil, conditional: Bool = false,
            nonce: String? = nil
        ) {
            self.userHandle = userHandle
            self.username = username
            self.displayName = displayName
            self.userVerification = userVerification
            self.enrollmentTicketHash = enrollmentTicketHash
            self.conditional = conditional
            self.nonce = nonce
        }
    }

    /// §7.1 step 8 / §7.2 step 12, first half: issues a challenge of `kind` to `client`, unless it or the
    /// server has too many pending (``ServiceError/Code/tooManyPending``, ``ServiceError/Code/busy``).
    package func issue(
        _ kind: CeremonyKind, for purpose: Purpose, client: ClientAddress, presented binding: CeremonyBinding, now: Date = Date()
    ) async throws -> Issued {
        let challenge = try SecureRandom.bytes(count: 32)
        let newBinding = try SecureRandom.bytes(count: 32)
        try await keep(
            PendingCeremony(
                challengeHash: Digest.sha256(challenge), kind: kind, userHandle: purpose.userHandle, username: purpose.username,
                displayName: purpose.displayName, userVerification: purpose.userVerification,
                bindingHash: Digest.sha256(newBinding), expiresAt: now.addingTimeInterval(lifetime),
                enrollmentTicketHash: purpose.enrollmentTicketHash, conditional: purpose.conditional, nonce: purpose.nonce),
            for: client, now: now)
        let earlier = binding.values.filter { $0.count == newBinding.count }
        return Issued(challenge: challenge, bindings: [newBinding] + earlier.prefix(Self.bindingsPerCarrier - 1))
    }

    /// Puts back a challenge taken for a request that turned out to lack what only the caller could add (its session):
    /// nothing was decided with it, so the same challenge, with its own expiry, answers the request sent again with it.
    /// Of two such requests at once, only one took the challenge; the other was refused as for a spent one. It counts
    /// in `client`'s caps again, as when it was issued; when they are full it stays spent.
    package func giveBack(_ pending: PendingCeremony, client: ClientAddress, now: Date = Date()) async throws {
        do {
            try await keep(pending, for: client, now: now)
        } catch let refused as ServiceError where refused.code == .tooManyPending || refused.code == .busy {
            return
        }
    }

    /// Counts `ceremony`'s challenge in `client`'s caps (refused when they are full) and stores it.
    private func keep(_ ceremony: PendingCeremony, for client: ClientAddress, now: Date) async throws {
        var ceremony = ceremony
        ceremony.client = client.key
        try await reserve(ceremony.challengeHash, for: client, expiresAt: ceremony.expiresAt, now: now)
        do {
            try await store.savePendingCeremony(ceremony)
        } catch {
            caps.release(ceremony.challengeHash)
            throw error
        }
    }

    /// The challenge the client answered, decoded from its client data (§7.1 step 8, §7.2 step 12: the
    /// verifier compares it with this same value, so this is where it is first read).
    package static func challenge(answeredBy clientData: CollectedClientData) throws(ServiceError) -> [UInt8] {
        guard let challenge = clientData.challengeBytes, !challenge.isEmpty else {
            throw ServiceError.invalid("clientDataJSON.challenge is not base64url")
        }
        return challenge
    }

    /// §7.1 step 8 / §7.2 step 12, second half: consumes the ceremony `challenge` answers and checks it.
    /// Whatever happens next, the challenge is spent. `member` names where the request carried it, for the error.
    package func take(
        _ kind: CeremonyKind, challenge: [UInt8], presented binding: CeremonyBinding, member: String = "clientDataJSON.challenge",
        now: Date = Date()
    ) async throws -> PendingCeremony {
        let pending = try await store.takePendingCeremony(challengeHash: Digest.sha256(challenge))
        return try check(pending, kind: kind, presented: binding, member: member, now: now)
    }

    /// Consumes the ceremony of an answer that failed after its ceremony was read (not taken), so that its challenge
    /// cannot be tried again. A store failure is logged, not thrown: the challenge expires all the same, and the
    /// refusal is what the client needs to hear.
    package func spend(_ challengeHash: [UInt8], of kind: CeremonyKind, logger: Logger) async {
        do {
            _ = try await store.takePendingCeremony(challengeHash: challengeHash)
        } catch {
            logger.warning("could not consume the challenge of \(Self.article(kind)) that failed", metadata: ["error": "\(error)"])
        }
    }

    /// Checks a consumed ceremony: it existed, has not expired, is of `kind`, and the binding carrier,
    /// when presented, holds the binding issued with it.
    package func check(
        _ pending: PendingCeremony?, kind: CeremonyKind, presented binding: CeremonyBinding, member: String = "clientDataJSON.challenge",
        now: Date = Date()
    ) throws(ServiceError) -> PendingCeremony {
        guard let pending else {
            throw ServiceError.invalid("\(member) does not match any pending ceremony: it is unknown, already used or expired")
        }
        caps.release(pending.challengeHash)
        guard pending.expiresAt > now else {
            throw ServiceError.invalid("the challenge expired \(Int(now.timeIntervalSince(pending.expiresAt))) seconds ago; request new options")
        }
        guard pending.kind == kind else {
            throw ServiceError.invalid("the challenge was issued for \(Self.article(pending.kind)), not \(Self.article(kind))")
        }
        if !binding.values.isEmpty, let bindingHash = pending.bindingHash {
            guard binding.values.contains(where: { constantTimeEquals(Digest.sha256($0), bindingHash) }) else {
                throw ServiceError.invalid("\(binding.carrier) does not belong to this challenge")
            }
        }
        return pending
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

    /// The refusal of a challenge the caps refused: one client's, or the server's.
    private func refusal(_ refusal: PendingChallengeCaps.Refusal) -> ServiceError {
        switch refusal {
        case .client(let client, let limit):
            ServiceError(
                .tooManyPending,
                "\(client) has \(limit) challenges pending already; answer them, or wait for them to expire, before asking for more",
                retryAfterSeconds: min(Int(lifetime), 60))
        case .total(let limit):
            ServiceError(
                .busy, "this server has \(limit) challenges pending, as many as it keeps; try again shortly", retryAfterSeconds: 10)
        }
    }

    private static func article(_ kind: CeremonyKind) -> String {
        switch kind {
        case .registration: "a registration"
        case .signIn: "a sign-in"
        case .deviceKeyEnrollment: "a device key enrollment"
        case .deviceKeySignIn: "a device key sign-in"
        case .appAttest: "App Attest"
        }
    }
}

/// The bindings a client presented with a ceremony request (its ceremony cookie's, decoded), and what
/// carried them, for the refusal of one that belongs to another challenge. None: a client that keeps no
/// binding (an app, a script), which the challenge alone identifies.
package struct CeremonyBinding: Sendable {
    /// What carried them, as a refusal names it: `the latchkey_signin cookie`.
    package var carrier: String
    /// Newest first; a part that could not be decoded is empty, and belongs to no challenge.
    package var values: [[UInt8]]

    package init(carrier: String, values: [[UInt8]]) {
        self.carrier = carrier
        self.values = values
    }

    /// No binding presented.
    package static let none = CeremonyBinding(carrier: "", values: [])
}
