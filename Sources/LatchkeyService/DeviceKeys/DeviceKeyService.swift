import Foundation
import LatchkeyStore
import Logging
import WebAuthn

/// Device keys: P-256 keys an app makes on the device (in the Secure Enclave, typically gated by Face ID or
/// Touch ID) and enrolls for the signed-in user; the app then signs in with a signature over a single-use
/// challenge, without the passkey sheet. What is signed is ``DeviceKeySignature``'s message. The server sees
/// possession of the key; that a biometric check guarded it is the app's promise.
package struct DeviceKeyService: Sendable {
    let service: RelyingPartyService

    /// Enrollment options for the user an enrollment ticket names (an app setting up an account its backend
    /// created), else for the signed-in user, soon after their sign-in.
    package func enrollmentOptions(
        ticket presented: String?, caller: Caller, presented binding: CeremonyBinding
    ) async throws -> IssuedOptions<DeviceKeyOptions> {
        let ticket: EnrollmentTicketRecord?
        let user: UserRecord
        if presented == nil, let identity = caller.identity {
            try service.policy.requireRecentSignIn(of: identity.session, adding: "a device key")
            (ticket, user) = (nil, identity.user)
        } else {
            guard let presented else {
                throw ServiceError(.notSignedIn, "not signed in: sign in, or send the enrollmentTicket your service issued")
            }
            let usable = try await service.tickets.usable(presented)
            (ticket, user) = (usable, try await service.tickets.holder(usable.userHandle))
        }
        let issued = try await service.challenges.issue(
            .deviceKeyEnrollment,
            for: Challenges.Purpose(
                userHandle: user.handle, username: user.username, userVerification: .preferred, enrollmentTicketHash: ticket?.hash),
            client: caller.client, presented: binding)
        return IssuedOptions(options: options(issued.challenge), bindings: issued.bindings)
    }

    /// Enrolls the key `request` carries for the user its challenge was issued to; returns the key's ID.
    package func enroll(
        _ request: DeviceKeyEnrollmentRequest, appAttestation: AppAttestProof, caller: Caller, presented binding: CeremonyBinding
    ) async throws -> [UInt8] {
        let attestedBy = try await service.appAttest.admit(appAttestation, for: "enrolling a device key")
        // What the request alone shows is checked before the challenge is spent, so a mistake can be mended and sent again.
        let signed = DeviceKeySignature(
            purpose: .enroll, rpID: service.relyingParty.id, challenge: request.challenge.bytes, publicKey: request.publicKey.bytes)
        try signed.verify(request.signature.bytes)
        let name = try request.name.flatMap { $0.isEmpty ? nil : $0 }.map { try UserNames.displayName($0, member: "name") }
        let pending = try await service.challenges.take(
            .deviceKeyEnrollment, challenge: request.challenge.bytes, presented: binding, member: "challenge")
        let now = Date()
        let user = try await enrollingUser(of: pending, caller: caller, now: now)
        let ticketHash = pending.enrollmentTicketHash
        let keyID = DeviceKeySignature.keyID(of: request.publicKey.bytes)
        var events: [SecurityEvent] = []
        if ticketHash != nil { events.append(try service.events.event(.enrollmentTicketUsed, caller.origin, user: user, at: now)) }
        events.append(try service.events.event(
            .deviceKeyEnrolled, caller.origin, user: user, credentialID: keyID, fact: attestedBy != nil ? .appAttested : nil, at: now))
        do {
            try await service.store.saveDeviceKey(
                DeviceKeyRecord(
                    id: keyID, userHandle: user.handle, publicKey: request.publicKey.bytes, name: name, createdAt: now,
                    appAttestKeyID: attestedBy?.keyID),
                spendingTicket: ticketHash.map { ($0, now) }, recording: events)
        } catch let error as StoreError where error.code == .ticketNotUsable {
            throw await service.tickets.refusal(forSpending: ticketHash ?? [], now: now)
        }
        caller.logger.info("device key enrolled", metadata: [
            "user": .quoted(user.username), "deviceKey": "\(RelyingPartyService.logID(keyID))",
            "appAttested": "\(attestedBy != nil)", "enrollmentTicket": "\(ticketHash != nil)",
        ])
        return keyID
    }

    /// Whom an enrollment's challenge enrolls for: a ticket's challenge is for the user it names; any other is for
    /// the signed-in user who asked, still soon after their sign-in.
    private func enrollingUser(of pending: PendingCeremony, caller: Caller, now: Date) async throws -> UserRecord {
        if pending.enrollmentTicketHash != nil {
            guard let owner = pending.userHandle else { throw ServiceError.internalInvariant("a ticket's challenge names no user") }
            return try await service.tickets.holder(owner)
        }
        guard let identity = caller.identity else {
            // Sent without its session: the challenge stays for the request sent again with it.
            try await service.challenges.giveBack(pending, client: caller.client)
            throw ServiceError(.notSignedIn, "not signed in: enrolling a device key without a ticket needs the session that asked for its options")
        }
        guard let owner = pending.userHandle, constantTimeEquals(owner, identity.user.handle) else {
            throw ServiceError.invalid("this challenge was issued to another user")
        }
        // Still soon after the sign-in: options asked for just inside the window do not stretch it.
        try service.policy.requireRecentSignIn(of: identity.session, now: now, adding: "a device key")
        return identity.user
    }

    /// The signed-in user's device keys.
    package func list(caller: Caller) async throws -> [DeviceKeyRecord] {
        try await service.store.deviceKeys(ofUser: try caller.signedIn().user.handle)
    }

    /// Names (or, with nil or an empty name, unnames) one of the signed-in user's device keys.
    package func rename(_ keyID: [UInt8], to name: String?, caller: Caller) async throws -> DeviceKeyRecord {
        let user = try caller.signedIn().user
        let name = try name.flatMap { $0.isEmpty ? nil : try UserNames.displayName($0, member: "name") }
        guard !keyID.isEmpty else { throw Self.notFound }
        let event = try service.events.event(
            .deviceKeyRenamed, caller.origin, user: user, credentialID: keyID, detail: SecurityEventRecorder.renameDetail(name))
        guard let renamed = try await service.store.renameDeviceKey(id: keyID, ownedBy: user.handle, name: name, recording: [event]) else {
            throw Self.notFound
        }
        caller.logger.info("device key renamed", metadata: [
            "user": .quoted(user.username), "deviceKey": "\(RelyingPartyService.logID(keyID))",
        ])
        return renamed
    }

    /// Removes one of the signed-in user's device keys.
    package func remove(_ keyID: [UInt8], caller: Caller) async throws {
        let user = try caller.signedIn().user
        guard !keyID.isEmpty,
              try await service.store.deleteDeviceKey(
                  id: keyID, ownedBy: user.handle,
                  recording: [service.events.event(.deviceKeyRemoved, caller.origin, user: user, credentialID: keyID)])
        else { throw Self.notFound }
        caller.logger.info("device key removed", metadata: [
            "user": .quoted(user.username), "deviceKey": "\(RelyingPartyService.logID(keyID))",
        ])
    }

    private static let notFound = ServiceError(.notFound, "no device key with this id")

    /// A key ID as enrollment makes it, the SHA-256 of the public key; refused otherwise (not as an unknown key,
    /// which would echo whatever was sent).
    private static func checkKeyID(_ id: [UInt8]) throws(ServiceError) {
        guard id.count == 32 else {
            throw ServiceError.invalid("keyId is \(id.count) bytes; a device key's ID is the SHA-256 of its public key, 32 bytes")
        }
    }

    /// Sign-in options for the device key `request` names.
    package func signInOptions(
        _ request: DeviceKeySignInOptionsRequest, caller: Caller, presented binding: CeremonyBinding
    ) async throws -> IssuedOptions<DeviceKeyOptions> {
        let nonce = try TokenNonce.checked(request.nonce)
        try Self.checkKeyID(request.keyId.bytes)
        guard let key = try await service.store.deviceKey(id: request.keyId.bytes) else {
            throw ServiceError.unknownDeviceKey(request.keyId.bytes)
        }
        let issued = try await service.challenges.issue(
            .deviceKeySignIn, for: Challenges.Purpose(userHandle: key.userHandle, userVerification: .preferred, nonce: nonce),
            client: caller.client, presented: binding)
        return IssuedOptions(options: options(issued.challenge), bindings: issued.bindings)
    }

    /// Signs in the owner of the device key whose signature over its challenge `request` carries.
    package func signIn(
        _ request: DeviceKeySignInRequest, appAttestation: AppAttestProof, caller: Caller, presented binding: CeremonyBinding
    ) async throws -> SignedIn {
        _ = try await service.appAttest.admit(appAttestation, for: "signing in with a device key")
        try Self.checkKeyID(request.keyId.bytes)
        let pending = try await service.challenges.take(
            .deviceKeySignIn, challenge: request.challenge.bytes, presented: binding, member: "challenge")
        guard let key = try await service.store.deviceKey(id: request.keyId.bytes),
              let owner = try await service.store.user(handle: key.userHandle)
        else { throw ServiceError.unknownDeviceKey(request.keyId.bytes) }
        guard let expected = pending.userHandle, constantTimeEquals(expected, key.userHandle) else {
            throw ServiceError.invalid("this challenge was issued for another user's device key")
        }
        let signed = DeviceKeySignature(purpose: .signIn, rpID: service.relyingParty.id, challenge: request.challenge.bytes, publicKey: key.publicKey)
        try signed.verify(request.signature.bytes)
        guard !owner.disabled else {
            // The key signed, so the refusal is the owner's: recorded, as a refused passkey sign-in is.
            let refusal = ServiceError.accountDisabled(owner.username)
            await service.recordRefusedSignIn(of: owner, deviceKeyID: key.id, because: refusal, origin: caller.origin, logger: caller.logger)
            throw refusal
        }

        let now = Date()
        let session = try service.sessions.make(for: owner.handle, methods: Sessions.methods(deviceBound: false, userVerified: false), now: now)
        let event = try service.events.event(
            .signInSucceeded, caller.origin, user: owner, credentialID: key.id, fact: .deviceKey, at: now)
        guard try await service.store.recordDeviceKeySignIn(
            id: key.id, at: now, session: session.record, endingSessions: caller.sessionTokenHashes, recording: [event])
        else {
            throw ServiceError.unknownDeviceKey(key.id)
        }
        caller.logger.info("signed in with a device key", metadata: [
            "user": .quoted(owner.username), "deviceKey": "\(RelyingPartyService.logID(key.id))",
        ])
        // The server saw possession of the key, not how the device guarded it.
        let idToken = try await service.signInToken(for: owner, credentialID: key.id, userVerified: false, nonce: pending.nonce, now: now)
        return SignedIn(user: owner, credentialID: key.id, userVerified: false, session: session, idToken: idToken)
    }

    private func options(_ challenge: [UInt8]) -> DeviceKeyOptions {
        DeviceKeyOptions(challenge: Base64URLBytes(challenge), timeout: service.timeoutMilliseconds, rpId: service.relyingParty.id)
    }
}
