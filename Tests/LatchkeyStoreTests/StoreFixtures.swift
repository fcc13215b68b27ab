import Foundation
import LatchkeyStore
import WebAuthn

/// Records for store tests. Dates are whole seconds, which every backend keeps exactly.
enum Fixtures {
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    static func bytes(_ tag: UInt8, count: Int = 32) -> [UInt8] {
        [UInt8](repeating: tag, count: count)
    }

    /// Distinct two-byte values, for tests that need many records.
    static func bytes(index: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: index >> 8), UInt8(truncatingIfNeeded: index)]
    }

    static func user(_ name: String, handle: UInt8) -> UserRecord {
        UserRecord(handle: bytes(handle, count: 64), username: name, displayName: name.capitalized, createdAt: now)
    }

    /// A device key of `user`, its ID and public key made of `tag`.
    static func deviceKey(
        _ tag: UInt8, of user: UserRecord, name: String? = nil, createdAt offset: TimeInterval = 0, appAttestKeyID: [UInt8]? = nil
    ) -> DeviceKeyRecord {
        DeviceKeyRecord(
            id: bytes(tag), userHandle: user.handle, publicKey: [4] + bytes(tag, count: 64), name: name,
            createdAt: now.addingTimeInterval(offset), appAttestKeyID: appAttestKeyID)
    }

    /// A plain passkey: the defaults a `none` attestation gives.
    static func credential(_ id: [UInt8], of user: UserRecord, signCount: UInt32 = 0) -> CredentialRecord {
        CredentialRecord(
            id: id, userHandle: user.handle, publicKey: [0xA5, 0x01, 0x02], algorithm: .es256, signCount: signCount,
            transports: [.internal, .hybrid], aaguid: bytes(0, count: 16), attestationFormat: .none,
            attestationType: .none, backupEligible: true, backedUp: true, residentKey: true, userVerified: true,
            createdAt: now)
    }

    static func credential(_ id: UInt8, of user: UserRecord, signCount: UInt32 = 0) -> CredentialRecord {
        credential(bytes(id, count: 16), of: user, signCount: signCount)
    }

    /// A passkey with every field away from its default.
    static func detailedCredential(_ id: UInt8, of user: UserRecord) -> CredentialRecord {
        CredentialRecord(
            id: bytes(id, count: 16), userHandle: user.handle, publicKey: Array(0...77), algorithm: .rs256,
            signCount: 4_000_000_000, transports: [.usb, .nfc, .ble, .smartCard, .hybrid, .internal],
            aaguid: Array(200...215), attestationFormat: .packed, attestationType: .attCA, attestationTrusted: true,
            trustPath: [Array(repeating: 0x30, count: 300), [0x30, 0x03, 0x02, 0x01, 0x00]],
            credentialProtectionPolicy: 3, signCountRegressions: 0, backupEligible: false, backedUp: false,
            residentKey: false, userVerified: false, createdAt: now.addingTimeInterval(-86_400),
            lastUsedAt: now.addingTimeInterval(-60), name: "Work laptop 🔑")
    }

    static func session(_ token: [UInt8], of user: UserRecord, expiresIn lifetime: TimeInterval = 3_600) -> SessionRecord {
        SessionRecord(tokenHash: token, userHandle: user.handle, createdAt: now, expiresAt: now.addingTimeInterval(lifetime))
    }

    static func session(_ token: UInt8, of user: UserRecord, expiresIn lifetime: TimeInterval = 3_600) -> SessionRecord {
        session(bytes(token), of: user, expiresIn: lifetime)
    }

    static func registration(_ challenge: UInt8, for user: UserRecord) -> PendingCeremony {
        PendingCeremony(
            challengeHash: bytes(challenge), kind: .registration, userHandle: user.handle, username: user.username,
            displayName: user.displayName, userVerification: .preferred, bindingHash: nil, expiresAt: now.addingTimeInterval(300))
    }

    static func signInCeremony(_ challenge: [UInt8], expiresIn lifetime: TimeInterval = 300) -> PendingCeremony {
        PendingCeremony(
            challengeHash: challenge, kind: .signIn, userHandle: nil, username: nil, displayName: nil,
            userVerification: .preferred, bindingHash: nil, expiresAt: now.addingTimeInterval(lifetime))
    }

    static func signInCeremony(_ challenge: UInt8, expiresIn lifetime: TimeInterval = 300) -> PendingCeremony {
        signInCeremony(bytes(challenge), expiresIn: lifetime)
    }

    /// A verified sign-in; its challenge (one per session token) is pending only once saved, as
    /// ``LatchkeyStore/recordAnswered(_:)`` does.
    static func signIn(
        _ credential: CredentialRecord, from previous: UInt32, to next: UInt32, session: SessionRecord,
        ending: [[UInt8]] = []
    ) -> CompletedSignIn {
        CompletedSignIn(
            challengeHash: Digest.sha256(session.tokenHash), credentialID: credential.id, previousSignCount: previous,
            signCount: next, backedUp: false, userVerified: false, at: now.addingTimeInterval(5), session: session,
            endingSessions: ending)
    }
}

extension LatchkeyStore {
    /// Saves the pending ceremony `signIn` answers, then records it, as a server's sign-in does.
    func recordAnswered(_ signIn: CompletedSignIn) async throws -> SignInRecording {
        try await savePendingCeremony(Fixtures.signInCeremony(signIn.challengeHash))
        return try await recordSignIn(signIn)
    }

    /// Registers `user` as new, with `credential` as their first passkey.
    func registerNew(_ user: UserRecord, with credential: CredentialRecord, session: SessionRecord? = nil) async throws {
        try await register(NewRegistration(credential: credential, newUser: user, session: session))
    }

    /// Whether a session with this token is live at the fixtures' `now`.
    func hasSession(_ token: [UInt8]) async throws -> Bool {
        try await session(tokenHash: token, now: Fixtures.now) != nil
    }
}
