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

        let existing: UserRecord? = if let ticketHolder { ticketHolder } else { try await service.store.user(named: username) }
        let conditional = try admission.admit(
            username: username, existing: existing, withTicket: ticket != nil, mediation: request.mediation, caller: caller)
        // A ticket's holder is checked with the ticket, and a disabled account's sessions count as none: only
        // conformance mode, where anyone may add a passkey, gets here for a disabled account.
        if let existing, existing.disabled { throw ServiceError.accountDisabled(existing.username) }
        let excluded = if let existing { try await service.store.credentials(ofUser: existing.handle) } else { [CredentialRecord]() }
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
    /// user, the session it starts and the ticket it spends, in one transaction.
    package func finish(_ credential: RegistrationCredential, caller: Caller, presented binding: CeremonyBinding) async throws -> Registered {
        let answer = try RegistrationAnswer(credential)
        // §7.1 step 8: the ceremony is found by the challenge the client data carries, and taken once.
        let challenge = try Challenges.challenge(answeredBy: answer.clientData)
        let pending = try await service.challenges.take(.registration, challenge: challenge, presented: binding)
        guard let userHandle = pending.userHandle, let username = pending.username else {
            throw ServiceError.internalInvariant("a pending registration names no user")
        }
        let verified = try verify(answer, pending: pending)

        let now = Date()
        let existing = try await service.store.user(handle: userHandle)
        try await RegistrationAdmission(service: service).checkStillAllowed(
            existing: existing, userHandle: userHandle, username: username, pending: pending, caller: caller, now: now)
        let newUser = existing == nil
            ? UserRecord(handle: userHandle, username: username, displayName: pending.displayName ?? username, createdAt: now)
            : nil
        guard let owner = existing ?? newUser else { throw ServiceError.internalInvariant("a registration without a user") }
        let record = CredentialRecord(verified: verified, userHandle: userHandle, createdAt: now)
        // A first registration, and one under an enrollment ticket, signs the user in, in the same
        // transaction that spends the ticket.
        let ticketHash = pending.enrollmentTicketHash
        let session = newUser != nil || ticketHash != nil ? try service.sessions.make(for: userHandle, now: now) : nil
        var events: [SecurityEvent] = []
        if let newUser { events.append(try service.events.event(.userCreated, caller.origin, user: newUser, at: now)) }
        if ticketHash != nil { events.append(try service.events.event(.enrollmentTicketUsed, caller.origin, user: owner, at: now)) }
        events.append(try service.events.event(
            .passkeyRegistered, caller.origin, user: owner, credential: record, detail: pending.conditional ? "conditional" : nil, at: now))
        do {
            try await service.store.register(NewRegistration(
                credential: record, newUser: newUser, session: session?.record,
                endingSessions: session == nil ? [] : caller.sessionTokenHashes,
                spendingTicket: ticketHash.map { ($0, now) }, events: events))
        } catch let error as StoreError where error.code == .ticketNotUsable {
            throw await service.tickets.refusal(forSpending: ticketHash ?? [], now: now)
        }
        caller.logger.info("passkey registered", metadata: [
            "user": .quoted(username), "credential": "\(RelyingPartyService.logID(verified.credentialID))",
            "format": "\(verified.attestationFormat)", "attestation": "\(verified.attestation.type.rawValue)",
            "trusted": "\(verified.attestationTrusted)", "newUser": "\(newUser != nil)", "enrollmentTicket": "\(ticketHash != nil)",
            "conditional": "\(pending.conditional)",
        ])
        let idToken = try await service.tokens.issue(
            for: owner, credentialID: verified.credentialID, userVerified: verified.userVerified, nonce: pending.nonce, now: now)
        return Registered(
            username: existing?.username ?? username, credentialID: verified.credentialID, attestationFormat: record.attestationFormat,
            attestationType: record.attestationType, attestationTrusted: verified.attestationTrusted,
            userVerified: verified.userVerified, session: session, idToken: idToken)
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
