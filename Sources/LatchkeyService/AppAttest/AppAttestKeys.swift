import Foundation
import LatchkeyConfiguration
import LatchkeyStore
import WebAuthn

/// App Attest on the server: attesting keys against Apple's root, and checking their assertions,
/// each over a single-use challenge of ``Challenges`` and with a counter that only moves up.
///
/// An assertion vouches for a request (`X-Latchkey-App-Attest: KEYID.ASSERTION`) when its
/// `clientData` is the request's exact body, a JSON object whose `appAttestChallenge` is a
/// challenge from `/app-attest/challenge`: the app signs what it sends, and the challenge makes
/// the assertion good for one request only.
package struct AppAttestKeys: Sendable {
    /// The request header that carries an assertion over the body, as refusals name it.
    package static let header = "X-Latchkey-App-Attest"

    package let requirement: AppAttestRequirement
    package let attestationVerifier: AppAttestAttestationVerifier
    package let assertionVerifier: AppAttestAssertionVerifier
    package let store: any LatchkeyStore
    package let challenges: Challenges

    package init(configuration: LatchkeyConfiguration, roots: [X509Certificate], store: any LatchkeyStore, challenges: Challenges) {
        requirement = configuration.appAttest
        attestationVerifier = AppAttestAttestationVerifier(
            appIDs: configuration.appleAppIDs, environments: configuration.appAttestEnvironments, anchors: roots)
        assertionVerifier = AppAttestAssertionVerifier(appIDs: configuration.appleAppIDs)
        self.store = store
        self.challenges = challenges
    }

    /// Verifies an attestation of `keyID` made for `challenge` (whose SHA-256 the app passed as
    /// `clientDataHash`) and stores the key.
    package func attest(
        keyID: [UInt8], attestationObject: [UInt8], challenge: [UInt8], presented binding: CeremonyBinding
    ) async throws -> AppAttestKeyRecord {
        _ = try await challenges.take(.appAttest, challenge: challenge, presented: binding, member: "challenge")
        let attested = try attestationVerifier.verify(attestationObject: attestationObject, keyID: keyID, clientDataHash: Digest.sha256(challenge))
        let record = AppAttestKeyRecord(
            keyID: attested.keyID, publicKey: attested.publicKey, appID: attested.appID, environment: attested.environment.rawValue,
            receipt: attested.receipt, createdAt: Date())
        do {
            try await store.saveAppAttestKey(record)
        } catch let error as StoreError where error.code == .credentialAlreadyRegistered {
            throw ServiceError(.conflict, "this App Attest key is attested already; attest each key once, then use assertions")
        }
        return record
    }

    /// Verifies an assertion of `keyID` over `clientData`, spends the challenge `clientData`
    /// carries and records the key's counter as accepted (``AppAttestCounters``: any counter once, in
    /// any order within the window); of two racing assertions with one counter, one wins. Returns the key as it now
    /// stands and the assertion's own counter.
    package func verify(
        keyID: [UInt8], assertion: [UInt8], clientData: [UInt8], presented binding: CeremonyBinding
    ) async throws -> (key: AppAttestKeyRecord, counter: UInt32) {
        // Read as strictly as a request body, so that nothing else reads another challenge in the same signed bytes.
        let carrier = try StrictJSONDocument.decode(AppAttestChallengeCarrier.self, from: clientData, document: "the App Attest client data")
        guard var key = try await store.appAttestKey(id: keyID) else { throw ServiceError.unknownAppAttestKey(keyID) }
        guard let challenge = carrier.appAttestChallenge?.bytes, !challenge.isEmpty else {
            throw ServiceError.invalid("the App Attest client data has no appAttestChallenge: ask POST /app-attest/challenge for one")
        }
        _ = try await challenges.take(.appAttest, challenge: challenge, presented: binding, member: "appAttestChallenge")
        // The stored pair as read, compared by the update (the window reads bit 0 as set whatever is stored).
        var stored = (counter: key.counter, accepted: key.acceptedCounters)
        var counters = AppAttestCounters(highest: stored.counter, accepted: stored.accepted)
        let counter = try assertionVerifier.verify(
            assertion: assertion, publicKey: key.publicKey, clientDataHash: Digest.sha256(clientData), counters: counters)
        let now = Date()
        // Assertions sent at once record their counters one after another: one that lost the race reads the
        // counters again and tries once more, as long as its own counter is still admitted.
        for _ in 0..<Self.counterUpdateAttempts {
            guard let accepted = counters.accepting(counter) else { throw ServiceError.invalid(counters.refusal(of: counter)) }
            if try await store.updateAppAttestCounters(id: keyID, from: stored, to: (accepted.highest, accepted.accepted), at: now) {
                key.counter = accepted.highest
                key.acceptedCounters = accepted.accepted
                key.lastUsedAt = now
                return (key, counter)
            }
            guard let current = try await store.appAttestKey(id: keyID) else { throw ServiceError.unknownAppAttestKey(keyID) }
            stored = (current.counter, current.acceptedCounters)
            counters = AppAttestCounters(highest: stored.counter, accepted: stored.accepted)
        }
        throw ServiceError(.busy, "App Attest assertion: too many assertions of this key at once; send it again with a new challenge")
    }

    /// How often an assertion reads its key's counters again after another assertion changed them first.
    package static let counterUpdateAttempts = 16

    /// The App Attest key that vouched for a request's body, or nil when none did and none is required; a
    /// request whose assertion fails, or that has none under `required`, is refused.
    package func admit(_ proof: AppAttestProof, for action: String) async throws -> AppAttestKeyRecord? {
        guard requirement != .off else { return nil }
        guard let value = proof.header else {
            guard requirement != .required else {
                throw ServiceError(
                    .forbidden,
                    "App Attest is required on this server: \(action) needs an \(Self.header) header with an App Attest assertion over the request body")
            }
            return nil
        }
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let keyID = AppAttestKeyID.bytes(String(parts[0])), let assertion = Base64URL.decode(String(parts[1])) else {
            throw ServiceError.invalid("\(Self.header) is not KEYID.ASSERTION (the key ID in base64, the assertion in base64url)")
        }
        guard !assertion.isEmpty else { throw ServiceError.invalid("\(Self.header) has no assertion after the key ID and the dot") }
        return try await verify(keyID: keyID, assertion: assertion, clientData: proof.body, presented: proof.binding).key
    }
}

/// What a request brings for App Attest to vouch for it: the `X-Latchkey-App-Attest` header (`KEYID.ASSERTION`),
/// when sent, and the exact body it signs.
package struct AppAttestProof: Sendable {
    package var header: String?
    package var body: [UInt8]
    /// The App Attest ceremony binding the request presented.
    package var binding: CeremonyBinding

    package init(header: String?, body: [UInt8], binding: CeremonyBinding) {
        self.header = header
        self.body = body
        self.binding = binding
    }
}
