import Foundation
import LatchkeyStore
import Logging
import WebAuthn

/// Registering a passkey (§7.1): the creation options (§5.4), then the answer's verification and record.
package struct RegistrationService: Sendable {
    let service: RelyingPartyService

    /// Creation options for the user `request` names (or its enrollment ticket names), if `caller` may register
    /// for them (``RegistrationAdmission``); the challenge is kept until it is answered or expires.
    package func options(
        _ request: RegistrationOptionsRequest, appAttestation: AppAttestProof, caller: Caller, presented binding: CeremonyBinding
    ) async throws -> IssuedOptions<CreationOptions> {
        let nonce = try TokenNonce.checked(request.nonce)
        _ = try await service.appAttest.admit(appAttestation, for: "registration")
        let admission = RegistrationAdmission(service: service)
        let (ticket, ticketHolder) = try await admission.presentedTicket(request.enrollmentTicket)
        let (spelling, username) = try await admission.names(requested: request.username, ticketHolder: ticketHolder)
        let requestedDisplayName = try request.displayName.flatMap { $0.isEmpty ? nil : $0 }.map { try UserNames.displayName($0) }
        let displayName = requestedDisplayName ?? spelling
        // The server's minimums, not the client, decide what the ceremony requires.
        let ceremonies = service.policy.ceremonies
        let userVerification = ceremonies.userVerification(requested: request.authenticatorSelection?.userVerification)
        let attestation = ceremonies.attestation(
            requested: request.attestation, policyNeedsStatement: service.attestationTrust.policy.wantsAttestationStatement)

        // The user and their passkeys (for excludeCredentials) in one read.
        let found: (user: UserRecord, credentials: [CredentialRecord])? = if let ticketHolder {
            (user: ticketHolder, credentials: try await service.store.credentials(ofUser: ticketHolder.handle))
        } else {
            try await service.store.userWithCredentials(named: username)
        }
        let existing = found?.user
        let conditional = try admission.admit(
            username: username, existing: existing, withTicket: ticket != nil, mediation: request.mediation, caller: caller)
        // A ticket's holder is checked with the ticket, and a disabled account's sessions count as none: only
        // conformance mode, where anyone may add a passkey, gets here for a disabled account.
        if let existing, existing.disabled { throw ServiceError.accountDisabled(existing.username) }
        let excluded = found?.credentials ?? []
        let userHandle = try existing?.handle ?? SecureRandom.bytes(count: 64)
        let issued = try await service.challenges.issue(
            .registration,
            for: Challenges.Purpose(
                userHandle: userHandle, username: existing?.username ?? username, displayName: existing?.displayName ?? displayName,
                userVerification: userVerification, enrollmentTicketHash: ticket?.hash, conditional: conditional, nonce: nonce),
            client: caller.client, presented: binding)

        let shownName = service.policy.optionsDisplayName == .requested ? displayName : (existing?.displayName ?? displayName)
        let options = CreationOptions(
            rp: .init(id: service.relyingParty.id, name: service.relyingParty.name),
            user: .init(id: Base64URLBytes(userHandle), name: spelling, displayName: shownName),
            challenge: Base64URLBytes(issued.challenge),
            pubKeyCredParams: service.relyingParty.algorithms.map { .init(alg: $0.rawValue) },
            timeout: service.timeoutMilliseconds,
            excludeCredentials: excluded.map(CredentialDescriptor.init),
            // The effective values (echoed as asked in conformance mode, where the tools deep-compare them).
            authenticatorSelection: ceremonies.authenticatorSelection(requested: request.authenticatorSelection),
            attestation: attestation,
            hints: request.hints, attestationFormats: request.attestationFormats,
            extensions: request.extensions?.members ?? ["credProps": .bool(true)])
        return IssuedOptions(options: options, bindings: issued.bindings)
    }

    /// Verifies the answer to a registration's options (§7.1 steps 5-26) and stores the passkey, with its new
    /// user, the session it starts, the ticket it spends and the challenge it answers, in one transaction. An
    /// answer costs two store round trips: one that reads the challenge's ceremony and its user, one that records
    /// the registration. A failed answer costs a third, which spends its challenge.
    package func finish(_ credential: RegistrationCredential, caller: Caller, presented binding: CeremonyBinding) async throws -> Registered {
        let answer = try RegistrationAnswer(credential)
        let contact = try credential.contactIdentifier.map { text throws(ServiceError) in try ContactIdentifier.parse(text) }
        // §7.1 step 8: the ceremony is found by the challenge the client data carries; it is read here and
        // consumed with the registration's record, or, when the answer fails, consumed all the same below: a
        // challenge is answered once.
        let challengeHash = Digest.sha256(try Challenges.challenge(answeredBy: answer.clientData))
        let lookup = try await service.store.registrationLookup(challengeHash: challengeHash)
        let now = Date()
        let stored: StoredRegistration
        do {
            stored = try await verifyAndStore(
                answer, contact: contact, lookup: lookup, challengeHash: challengeHash, caller: caller, presented: binding, now: now)
        } catch {
            if lookup.ceremony != nil { await service.challenges.spend(challengeHash, of: .registration, logger: caller.logger) }
            throw error
        }
        let (pending, verified, owner) = (stored.pending, stored.verified, stored.owner)
        caller.logger.info("passkey registered", metadata: [
            "user": .quoted(owner.username), "credential": "\(RelyingPartyService.logID(verified.credentialID))",
            "format": "\(verified.attestationFormat)", "attestation": "\(verified.attestation.type.rawValue)",
            "trusted": "\(verified.attestationTrusted)", "newUser": "\(stored.createdUser)",
            "enrollmentTicket": "\(pending.enrollmentTicketHash != nil)", "conditional": "\(pending.conditional)",
        ])
        let idToken = try await service.signInToken(
            for: owner, credentialID: verified.credentialID, userVerified: verified.userVerified, nonce: pending.nonce, now: now)
        return Registered(
            username: owner.username, credentialID: verified.credentialID, attestationFormat: stored.record.attestationFormat,
            attestationType: stored.record.attestationType, attestationTrusted: verified.attestationTrusted,
            userVerified: verified.userVerified, session: stored.session, idToken: idToken)
    }

    /// The answer checked against the ceremony `lookup` read (§7.1 steps 5-26, then what may have changed since
    /// the options), and stored with what it makes: the user when new, the session, the ticket's use, the events.
    private func verifyAndStore(
        _ answer: RegistrationAnswer, contact: UserContact?, lookup: RegistrationLookup, challengeHash: [UInt8], caller: Caller,
        presented binding: CeremonyBinding, now: Date
    ) async throws -> StoredRegistration {
        let pending = try service.challenges.check(lookup.ceremony, kind: .registration, presented: binding, now: now)
        guard let userHandle = pending.userHandle, let username = pending.username else {
            throw ServiceError.internalInvariant("a pending registration names no user")
        }
        let verified = try verify(answer, pending: pending)
        // A user made or deleted since the lookup is caught by the transaction below (the username taken, or the
        // credential's owner missing).
        let existing = lookup.user
        try RegistrationAdmission(service: service).checkStillAllowed(
            existing: existing, userHandleHasHistory: lookup.userHandleHasHistory, username: username, pending: pending,
            caller: caller, now: now)
        let newUser = existing == nil
            ? UserRecord(handle: userHandle, username: username, displayName: pending.displayName ?? username, createdAt: now)
            : nil
        guard let owner = existing ?? newUser else { throw ServiceError.internalInvariant("a registration without a user") }
        let record = CredentialRecord(verified: verified, userHandle: userHandle, createdAt: now)
        // A first registration, and one under an enrollment ticket, signs the user in, in the same
        // transaction that spends the ticket.
        let ticketHash = pending.enrollmentTicketHash
        let methods = Sessions.methods(deviceBound: !record.backupEligible, userVerified: record.userVerified)
        let session = newUser != nil || ticketHash != nil ? try service.sessions.make(for: userHandle, methods: methods, now: now) : nil
        do {
            try await service.store.register(NewRegistration(
                challengeHash: challengeHash, credential: record, newUser: newUser, session: session?.record,
                endingSessions: session == nil ? [] : caller.sessionTokenHashes, spendingTicket: ticketHash.map { ($0, now) },
                events: try events(of: record, owner: owner, newUser: newUser, pending: pending, origin: caller.origin, at: now),
                contact: newUser == nil ? nil : contact))
        } catch let error as StoreError where error.code == .ticketNotUsable {
            throw await service.tickets.refusal(forSpending: ticketHash ?? [], now: now)
        } catch let error as StoreError where error.code == .challengeSpent {
            throw ServiceError.challengeAnsweredAlready
        }
        return StoredRegistration(
            pending: pending, verified: verified, record: record, owner: owner, createdUser: newUser != nil, session: session)
    }

    /// What a registration records: the user created (when new), the ticket used (when one was), the passkey.
    private func events(
        of record: CredentialRecord, owner: UserRecord, newUser: UserRecord?, pending: PendingCeremony, origin: EventOrigin, at now: Date
    ) throws -> [SecurityEvent] {
        var events: [SecurityEvent] = []
        if let newUser { events.append(try service.events.event(.userCreated, origin, user: newUser, at: now)) }
        if pending.enrollmentTicketHash != nil { events.append(try service.events.event(.enrollmentTicketUsed, origin, user: owner, at: now)) }
        events.append(try service.events.event(
            .passkeyRegistered, origin, user: owner, credential: record, detail: pending.conditional ? "conditional" : nil, at: now))
        return events
    }

    /// §7.1 steps 5-26 on the answer to `pending`, and the server's own rule after them: a passkey that is not
    /// discoverable, where discoverable ones are required.
    private func verify(_ answer: RegistrationAnswer, pending: PendingCeremony) throws -> VerifiedRegistration {
        let ceremonies = service.policy.ceremonies
        let verified = try service.metrics.timeVerification(.registrationResult) {
            try service.registrationVerifier.verify(
                answer.response, clientData: answer.clientData,
                expecting: pending.conditional
                    // A conditional create may lack user presence, and the verification minimum does not apply.
                    ? RegistrationExpectation(challenge: .foundByTheAnswer, userVerification: .preferred, mediation: .conditional)
                    : RegistrationExpectation(
                        challenge: .foundByTheAnswer, userVerification: ceremonies.userVerification(requested: pending.userVerification)))
        }
        // A client that reports a non-discoverable credential did not honour `residentKey: required`.
        if ceremonies.clientChoices == .raisedToMinimums, ceremonies.residentKey == .required, verified.residentKey == false {
            throw ServiceError.invalid(
                "the authenticator made a passkey that is not discoverable (credProps.rk is false); this server requires discoverable passkeys (residentKey required)")
        }
        return verified
    }
}

/// A registration answer once its members are checked: the response the verifier reads, and its client data,
/// parsed once (for the challenge, and for §7.1 steps 7-10).
struct RegistrationAnswer {
    let response: RegistrationResponse
    let clientData: CollectedClientData

    init(_ credential: RegistrationCredential) throws {
        let credentialID = try CredentialChecks.credentialID(id: credential.id, rawId: credential.rawId)
        let clientDataJSON = try CredentialChecks.required(credential.response.clientDataJSON, "response.clientDataJSON")
        let attestationObject = try CredentialChecks.required(credential.response.attestationObject, "response.attestationObject")
        response = RegistrationResponse(
            credentialID: credentialID, clientDataJSON: clientDataJSON, attestationObject: attestationObject,
            transports: AuthenticatorTransport.known(credential.response.transports ?? []),
            residentKey: credential.extensionResults?.credProps?.rk)
        clientData = try CollectedClientData(clientDataJSON)
    }
}

/// A registration verified and stored: what its log line and reply need.
private struct StoredRegistration {
    let pending: PendingCeremony
    let verified: VerifiedRegistration
    let record: CredentialRecord
    let owner: UserRecord
    let createdUser: Bool
    let session: Sessions.Started?
}
