import Foundation
import Hummingbird
import LatchkeyService
import LatchkeyStore
import Logging
import WebAuthn

/// Device keys: P-256 keys an app makes on the device (in the Secure Enclave, typically gated by
/// Face ID or Touch ID) and enrols for the signed-in user; the app then signs in with a signature
/// over a single-use challenge, without the passkey sheet. What is signed is
/// ``DeviceKeySignature``'s message. The server sees possession of the key; that a biometric check
/// guarded it is the app's promise.
struct DeviceKeysController: Sendable {
    let services: LatchkeyServices

    /// Enrolment, listing and removal run behind ``SessionAuthenticator``; sign-in does not.
    func addRoutes(authenticated: RouterGroup<LatchkeyRequestContext>, signIn: RouterGroup<LatchkeyRequestContext>) {
        authenticated.post("options", use: enrolmentOptions)
        authenticated.post(use: enrol)
        authenticated.get(use: list)
        authenticated.patch("{keyId}", use: rename)
        authenticated.delete("{keyId}", use: remove)
        signIn.post("options", use: signInOptions)
        signIn.post(use: self.signIn)
    }

    /// For the user an enrollment ticket names (an app setting up an account its backend created),
    /// else for the signed-in user, soon after their sign-in.
    @Sendable func enrolmentOptions(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let ticket: EnrollmentTicketRecord?
        let user: UserRecord
        let presented = request.headers[.contentType] == nil
            ? nil : try await request.decode(as: DeviceKeyEnrolmentOptionsRequest.self, context: context).enrollmentTicket
        if presented == nil, let identity = context.identity {
            try services.policy.requireRecentSignIn(of: identity.session, adding: "a device key")
            (ticket, user) = (nil, identity.user)
        } else {
            guard let presented else {
                throw APIError(.unauthorized, "not signed in: sign in, or send the enrollmentTicket your service issued")
            }
            let usable = try await services.tickets.usable(presented)
            (ticket, user) = (usable, try await services.tickets.holder(usable.userHandle))
        }
        let issued = try await services.challenges.issue(
            .deviceKeyEnrolment, for: request, userHandle: user.handle, username: user.username, displayName: nil,
            userVerification: .preferred, client: context.clientAddress, enrollmentTicketHash: ticket?.hash)
        return issued.response(options(issued.challenge))
    }

    @Sendable func enrol(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let bytes = try await WireDecoder.body(of: request)
        let body = try WireDecoder.decode(DeviceKeyEnrolmentRequest.self, from: bytes)
        let attestedBy = try await services.appAttest.admit(request, body: bytes, for: "enrolling a device key")
        // What the request alone shows is checked before the challenge is spent, so a mistake can be mended and sent again.
        let signed = DeviceKeySignature(purpose: .enrol, rpID: services.relyingParty.id, challenge: body.challenge.bytes, publicKey: body.publicKey.bytes)
        try signed.verify(body.signature.bytes)
        let name = try body.name.flatMap { $0.isEmpty ? nil : $0 }.map { try UserNames.displayName($0, member: "name") }
        let pending = try await services.challenges.take(.deviceKeyEnrolment, challenge: body.challenge.bytes, request: request, member: "challenge")
        // A ticket's challenge is for the user it names; any other is for the signed-in user who asked.
        let ticketHash = pending.enrollmentTicketHash
        let now = Date()
        let user: UserRecord
        if ticketHash != nil {
            guard let owner = pending.userHandle else { throw ServiceError.internalInvariant("a ticket's challenge names no user") }
            user = try await services.tickets.holder(owner)
        } else {
            guard let identity = context.identity else {
                // Sent without its session: the challenge stays for the request sent again with it.
                try await services.challenges.giveBack(pending, client: context.clientAddress)
                throw APIError(.unauthorized, "not signed in: enrolling a device key without a ticket needs the session that asked for its options")
            }
            user = identity.user
            guard let owner = pending.userHandle, constantTimeEquals(owner, user.handle) else {
                throw APIError.badRequest("this challenge was issued to another user")
            }
            // Still soon after the sign-in: options asked for just inside the window do not stretch it.
            try services.policy.requireRecentSignIn(of: identity.session, now: now, adding: "a device key")
        }
        let keyID = DeviceKeySignature.keyID(of: body.publicKey.bytes)
        let origin = context.eventOrigin(request)
        var events: [SecurityEvent] = []
        if ticketHash != nil { events.append(try services.events.event(.enrollmentTicketUsed, origin, user: user, at: now)) }
        events.append(try services.events.event(
            .deviceKeyEnrolled, origin, user: user, credentialID: keyID, detail: attestedBy != nil ? "app attested" : nil, at: now))
        do {
            try await services.store.saveDeviceKey(
                DeviceKeyRecord(
                    id: keyID, userHandle: user.handle, publicKey: body.publicKey.bytes, name: name, createdAt: now,
                    appAttestKeyID: attestedBy?.keyID),
                spendingTicket: ticketHash.map { ($0, now) }, recording: events)
        } catch let error as StoreError where error.code == .ticketNotUsable {
            throw await services.tickets.refusal(forSpending: ticketHash ?? [], now: now)
        }
        context.logger.info("device key enrolled", metadata: [
            "user": .quoted(user.username), "deviceKey": "\(LatchkeyServices.logID(keyID))",
            "appAttested": "\(attestedBy != nil)", "enrollmentTicket": "\(ticketHash != nil)",
        ])
        var response = JSONResponse.make(DeviceKeyEnrolledReply(keyId: Base64URLBytes(keyID)), status: .created)
        response.setCookie(services.challenges.clearingCookie(.deviceKeyEnrolment))
        return response
    }

    @Sendable func list(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let user = try context.requireIdentity().user
        let keys = try await services.store.deviceKeys(ofUser: user.handle)
        return JSONResponse.make(DeviceKeyListReply(deviceKeys: keys.map(DeviceKeySummary.init)))
    }

    @Sendable func rename(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let user = try context.requireIdentity().user
        let body = try await request.decode(as: RenameCredentialRequest.self, context: context)
        // An empty name removes it, as null does.
        let name = try body.name.flatMap { $0.isEmpty ? nil : try UserNames.displayName($0, member: "name") }
        guard let text = context.parameters.get("keyId"), let id = Base64URL.decode(text), !id.isEmpty else {
            throw APIError(.notFound, "no device key with this id")
        }
        let event = try services.events.event(
            .deviceKeyRenamed, context.eventOrigin(request), user: user, credentialID: id,
            detail: SecurityEventRecorder.renameDetail(name))
        guard let renamed = try await services.store.renameDeviceKey(id: id, ownedBy: user.handle, name: name, recording: [event]) else {
            throw APIError(.notFound, "no device key with this id")
        }
        context.logger.info("device key renamed", metadata: [
            "user": .quoted(user.username), "deviceKey": "\(LatchkeyServices.logID(id))",
        ])
        return JSONResponse.make(DeviceKeyReply(deviceKey: DeviceKeySummary(renamed)))
    }

    @Sendable func remove(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let user = try context.requireIdentity().user
        let origin = context.eventOrigin(request)
        guard let text = context.parameters.get("keyId"), let id = Base64URL.decode(text), !id.isEmpty,
              try await services.store.deleteDeviceKey(
                  id: id, ownedBy: user.handle,
                  recording: [services.events.event(.deviceKeyRemoved, origin, user: user, credentialID: id)])
        else { throw APIError(.notFound, "no device key with this id") }
        context.logger.info("device key removed", metadata: [
            "user": .quoted(user.username), "deviceKey": "\(LatchkeyServices.logID(id))",
        ])
        return JSONResponse.ok()
    }

    /// A key ID as enrolment makes it, the SHA-256 of the public key, or a 400 (not an unknown key's reply, which
    /// would echo whatever was sent).
    private static func checkKeyID(_ id: [UInt8]) throws(APIError) {
        guard id.count == 32 else {
            throw APIError.badRequest("keyId is \(id.count) bytes; a device key's ID is the SHA-256 of its public key, 32 bytes")
        }
    }

    @Sendable func signInOptions(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let body = try await request.decode(as: DeviceKeySignInOptionsRequest.self, context: context)
        let nonce = try TokenNonce.checked(body.nonce)
        try Self.checkKeyID(body.keyId.bytes)
        guard let key = try await services.store.deviceKey(id: body.keyId.bytes) else {
            throw ServiceError.unknownDeviceKey(body.keyId.bytes)
        }
        let issued = try await services.challenges.issue(
            .deviceKeySignIn, for: request, userHandle: key.userHandle, username: nil, displayName: nil, userVerification: .preferred,
            client: context.clientAddress, nonce: nonce)
        return issued.response(options(issued.challenge))
    }

    @Sendable func signIn(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let bytes = try await WireDecoder.body(of: request)
        let body = try WireDecoder.decode(DeviceKeySignInRequest.self, from: bytes)
        _ = try await services.appAttest.admit(request, body: bytes, for: "signing in with a device key")
        try Self.checkKeyID(body.keyId.bytes)
        let pending = try await services.challenges.take(.deviceKeySignIn, challenge: body.challenge.bytes, request: request, member: "challenge")
        guard let key = try await services.store.deviceKey(id: body.keyId.bytes),
              let owner = try await services.store.user(handle: key.userHandle)
        else { throw ServiceError.unknownDeviceKey(body.keyId.bytes) }
        guard let expected = pending.userHandle, constantTimeEquals(expected, key.userHandle) else {
            throw APIError.badRequest("this challenge was issued for another user's device key")
        }
        let signed = DeviceKeySignature(purpose: .signIn, rpID: services.relyingParty.id, challenge: body.challenge.bytes, publicKey: key.publicKey)
        try signed.verify(body.signature.bytes)
        guard !owner.disabled else {
            // The key signed, so the refusal is the owner's: recorded, as a refused passkey sign-in is.
            let refusal = ServiceError.accountDisabled(owner.username)
            await services.recordRefusedSignIn(
                of: owner, deviceKeyID: key.id, because: refusal, origin: context.eventOrigin(request), logger: context.logger)
            throw refusal
        }

        let now = Date()
        let session = try services.sessions.make(for: owner.handle, now: now)
        let event = try services.events.event(
            .signInSucceeded, context.eventOrigin(request), user: owner, credentialID: key.id, detail: "device key", at: now)
        guard try await services.store.recordDeviceKeySignIn(
            id: key.id, at: now, session: session.record, endingSessions: services.sessions.tokenHashes(in: request), recording: [event])
        else {
            throw ServiceError.unknownDeviceKey(key.id)
        }
        context.logger.info("signed in with a device key", metadata: [
            "user": .quoted(owner.username), "deviceKey": "\(LatchkeyServices.logID(key.id))",
        ])
        // The server saw possession of the key, not how the device guarded it.
        let idToken = try await services.tokens.issue(for: owner, credentialID: key.id, userVerified: false, nonce: pending.nonce, now: now)
        var response = JSONResponse.make(SignInReply(
            username: owner.username, displayName: owner.displayName, credentialId: Base64URLBytes(key.id), userVerified: false,
            sessionToken: session.token, idToken: idToken))
        response.setCookie(services.challenges.clearingCookie(.deviceKeySignIn))
        response.setCookie(services.sessions.cookie(for: session.token))
        return response
    }

    private func options(_ challenge: [UInt8]) -> DeviceKeyOptionsReply {
        DeviceKeyOptionsReply(challenge: Base64URLBytes(challenge), timeout: services.timeoutMilliseconds, rpId: services.relyingParty.id)
    }
}
