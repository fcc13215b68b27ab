import Foundation
import LatchkeyJSON
import LatchkeyStore
import LatchkeyTokens
import Synchronization
import WebAuthn

/// Issues the sign-in token (`idToken`) of every successful ceremony with the store's current
/// signing key, and publishes the keys that verify live tokens. Signing keys live in the store,
/// so every instance signs with the same key; the first is made on first use.
///
/// The keys are read from the store at most every ``refreshInterval`` when signing, and on every
/// request for the key set. A rotated-in key is published at once and signs only from its
/// `signsFrom` (``rotate(_:activateIn:now:)``), so verifiers that cache the key set have it before
/// they meet a token it signed.
package final class SignInTokens: Sendable {
    package let store: any BackendStore
    package let issuer: String
    package let audience: [String]
    package let lifetime: TimeInterval
    /// How long a signing instance keeps using the keys it read.
    package static let refreshInterval: TimeInterval = 5
    /// Extra time a rotated-out key stays published, for verifiers' clocks and caches.
    package static let publicationMargin: TimeInterval = 60

    private let ring = Mutex<(keys: SigningKeyRing, readAt: Date)?>(nil)

    package init(store: any BackendStore, issuer: String, audience: [String], lifetime: TimeInterval) {
        self.store = store
        self.issuer = issuer
        self.audience = audience
        self.lifetime = lifetime
    }

    /// A signed token saying that `user` proved possession of `credentialID` at `now`, carrying the
    /// client's `nonce` when its options had one.
    package func issue(for user: UserRecord, credentialID: [UInt8], userVerified: Bool, nonce: String? = nil, now: Date = Date()) async throws
        -> String
    {
        let key = try await currentKeys(now: now).signingKey(at: now)
        let claims = IDTokenClaims(
            iss: issuer, aud: audience, sub: Base64URL.encode(user.handle), preferredUsername: user.username,
            externalId: user.externalId, issuedAt: now, expiresAt: now.addingTimeInterval(lifetime), authenticatedAt: now,
            amr: IDTokenClaims.methods(userVerified: userVerified), credentialID: Base64URL.encode(credentialID),
            jwtID: Base64URL.encode(try SecureRandom.bytes(count: 16)), nonce: nonce)
        return try JSONWebToken.sign(claims, with: key)
    }

    /// `claims` signed with the current signing key: the OpenID provider's ID tokens, which live ``lifetime`` too, so
    /// the published key set covers them as it covers sign-in tokens.
    package func sign(_ claims: some JSONTextEncodable, now: Date = Date()) async throws -> String {
        try JSONWebToken.sign(written: claims, with: try await currentKeys(now: now).signingKey(at: now))
    }

    /// The keys that verify tokens which may be live now or soon: keys waiting to sign, the signing
    /// key, and each older key until ``lifetime`` (plus margins) after its successor took over.
    package func keySet(now: Date = Date()) async throws -> JSONWebKeySet {
        let keys = try await reload(now: now)
        return JSONWebKeySet(keys: keys.published(now: now, overlap: lifetime + Self.refreshInterval + Self.publicationMargin))
    }

    /// Makes the first signing key when the store has none (at start-up, so a broken store fails early).
    package func prepare() async throws {
        _ = try await reload(now: Date())
    }

    /// The keys read within ``refreshInterval``, or read now.
    private func currentKeys(now: Date) async throws -> SigningKeyRing {
        if let cached = ring.withLock({ $0 }), now.timeIntervalSince(cached.readAt) < Self.refreshInterval, now >= cached.readAt {
            return cached.keys
        }
        return try await reload(now: now)
    }

    /// Reads the keys from the store (making the first one if there is none) and keeps them.
    private func reload(now: Date) async throws -> SigningKeyRing {
        var records = try await store.signingKeys()
        if records.isEmpty {
            _ = try await Self.addKey(to: store, after: [], now: now)
            records = try await store.signingKeys()
        }
        let previous = ring.withLock { $0?.keys }
        let keys = try SigningKeyRing(records, reusing: previous)
        ring.withLock { $0 = (keys, now) }
        return keys
    }

    /// Adds a new signing key, the next generation after `existing`, that signs from `signsFrom`;
    /// nil when another process added that generation first.
    package static func addKey(
        to store: any BackendStore, after existing: [SigningKeyRecord], now: Date = Date(), signsFrom: Date? = nil,
        by actor: SecurityEventActor = .system("tokens")
    ) async throws -> SigningKeyRecord? {
        let key = try TokenSigningKey.generate()
        let record = SigningKeyRecord(
            generation: (existing.map(\.generation).max() ?? 0) + 1, keyID: key.keyID, privateKey: try key.pem(), createdAt: now,
            signsFrom: signsFrom ?? now)
        let event = SecurityEvent(
            id: try SecurityEventRecorder.newID(), type: .signingKeyRotated, occurredAt: now, actor: actor,
            detail: "generation \(record.generation), key ID \(record.keyID), signs from \(RFC3339.string(record.signsFrom))")
        return try await store.addSigningKey(record, recording: [event]) ? record : nil
    }

    /// How long a rotated-in key is published before it signs, by default: as long as common
    /// verifiers keep a key set (PyJWT's `PyJWKClient` keeps it five minutes).
    package static let defaultActivationDelay: TimeInterval = 300

    /// Adds a signing key, published at once, that signs `activateIn` seconds from now on every
    /// instance (within ``refreshInterval``); the previous one stays published while tokens it
    /// signed may be live.
    package static func rotate(
        _ store: any BackendStore, activateIn: TimeInterval = defaultActivationDelay, by actor: SecurityEventActor = .system("tokens"),
        now: Date = Date()
    ) async throws -> SigningKeyRecord {
        for _ in 0..<3 {
            let existing = try await store.signingKeys()
            if let added = try await addKey(
                to: store, after: existing, now: now, signsFrom: now.addingTimeInterval(activateIn), by: actor
            ) {
                return added
            }
        }
        throw StoreError(.database, "another process kept adding signing keys at the same time; try again")
    }
}

/// The signing keys read from the store, parsed, oldest generation first.
package struct SigningKeyRing: Sendable {
    package struct Entry: Sendable {
        package let record: SigningKeyRecord
        package let key: TokenSigningKey
    }

    package let entries: [Entry]

    /// Parses `records`, reusing the keys `previous` parsed already. Throws when there are none.
    package init(_ records: [SigningKeyRecord], reusing previous: SigningKeyRing?) throws {
        guard !records.isEmpty else { throw StoreError(.database, "the store has no signing key") }
        entries = try records.sorted { $0.generation < $1.generation }.map { record in
            if let known = previous?.entries.first(where: { $0.record == record }) { return known }
            do {
                return Entry(record: record, key: try TokenSigningKey(pem: record.privateKey))
            } catch let error as TokenError {
                throw StoreError(.database, "signing key \(record.generation) (\(record.keyID)) cannot be used: \(error.message)")
            }
        }
    }

    /// The index of the key that signs at `now`: the newest whose `signsFrom` has come (the
    /// oldest when none has, as with clocks that disagree).
    package func signingIndex(at now: Date) -> Int {
        entries.lastIndex { $0.record.signsFrom <= now } ?? 0
    }

    /// The key that signs at `now`.
    package func signingKey(at now: Date) -> TokenSigningKey { entries[signingIndex(at: now)].key }

    /// Newest first: the keys waiting to sign, the signing key, and every older key whose
    /// successor started signing less than `overlap` ago.
    package func published(now: Date, overlap: TimeInterval) -> [JSONWebKey] {
        let signing = signingIndex(at: now)
        return entries.indices.compactMap { index in
            guard index < signing else { return entries[index].key.publicKey }
            let retiredAt = entries[index + 1].record.signsFrom
            return now.timeIntervalSince(retiredAt) < overlap ? entries[index].key.publicKey : nil
        }.reversed()
    }
}

extension RelyingPartyService {
    /// The sign-in token a ceremony answers with (``SignInTokens/issue(for:credentialID:userVerified:nonce:now:)``),
    /// or nil when `signInTokens` is off: nothing is signed then.
    func signInToken(for user: UserRecord, credentialID: [UInt8], userVerified: Bool, nonce: String?, now: Date) async throws -> String? {
        guard configuration.signInTokens else { return nil }
        return try await tokens.issue(for: user, credentialID: credentialID, userVerified: userVerified, nonce: nonce, now: now)
    }
}
