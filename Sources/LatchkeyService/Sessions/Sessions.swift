import Foundation
import LatchkeyStore
import WebAuthn

/// Makes, finds and ends sign-in sessions. A session token is 32 random bytes handed to the client
/// (as the transport carries it: a cookie and JSON); the store keeps only its SHA-256.
package struct Sessions: Sendable {
    package let store: any LatchkeyStore
    /// How long a session lives.
    package let lifetime: TimeInterval

    package init(store: any LatchkeyStore, lifetime: TimeInterval) {
        self.store = store
        self.lifetime = lifetime
    }

    /// A session about to be stored: the token for the client, and the record the store keeps.
    package struct Started: Sendable {
        package let token: String
        package let record: SessionRecord
    }

    /// A new session for `userHandle`, not yet stored, whose sign-in proved `methods` (``methods(deviceBound:userVerified:)``).
    package func make(for userHandle: [UInt8], methods: [String], now: Date = Date()) throws -> Started {
        let token = try SecureRandom.bytes(count: 32)
        let record = SessionRecord(
            tokenHash: Digest.sha256(token), userHandle: userHandle, createdAt: now, expiresAt: now.addingTimeInterval(lifetime),
            methods: methods)
        return Started(token: Base64URL.encode(token), record: record)
    }

    /// What a sign-in with a key proved, as RFC 8176 names it: possession of a hardware-bound key (`hwk`: a passkey
    /// that cannot be backed up) or of one that can leave the device (`swk`: a synced passkey, a device key), and with
    /// user verification the person too (`user`, and `mfa`: two factors, the device and the PIN or biometric).
    package static func methods(deviceBound: Bool, userVerified: Bool) -> [String] {
        [deviceBound ? "hwk" : "swk"] + (userVerified ? ["user", "mfa"] : [])
    }

    /// The hashes of `tokens`, in their order; a text that cannot be a session token (not 32 bytes of base64url) is left out.
    package static func tokenHashes(of tokens: [String]) -> [[UInt8]] {
        tokens.compactMap(Base64URL.decode).filter { $0.count == 32 }.map(Digest.sha256)
    }

    /// The live session of the first of `tokens` that is one, with its user, unless the user is disabled.
    package func current(presented tokens: [String], now: Date = Date()) async throws -> SessionWithUser? {
        guard let hash = Self.tokenHashes(of: tokens).first, let found = try await store.session(tokenHash: hash, now: now),
              !found.user.disabled
        else { return nil }
        return found
    }

    /// Ends every session `caller` presented, recording `events` when one was live.
    package func end(presentedBy caller: Caller, recording events: [SecurityEvent] = []) async throws {
        let hashes = caller.sessionTokenHashes
        if !hashes.isEmpty { try await store.deleteSessions(tokenHashes: hashes, recording: events) }
    }
}
