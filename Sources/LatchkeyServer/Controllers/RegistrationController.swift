import Foundation
import Hummingbird
import LatchkeyService
import LatchkeyStore
import Logging
import WebAuthn

/// `POST /attestation/options` and `POST /attestation/result`: registering a passkey (§7.1).
struct RegistrationController: Sendable {
    let services: LatchkeyServices

    /// Both run behind ``SessionAuthenticator``: adding a passkey to an existing user needs that user's
    /// session when the options are asked for and still when the result comes; `result` finds its
    /// ceremony from the challenge.
    func addRoutes(authenticated: RouterGroup<LatchkeyRequestContext>) {
        authenticated.post("options", use: options)
        authenticated.post("result", use: result)
    }

    @Sendable func options(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let bytes = try await WireDecoder.body(of: request)
        let body = try WireDecoder.decode(RegistrationOptionsRequest.self, from: bytes)
        let nonce = try TokenNonce.checked(body.nonce)
        _ = try await services.appAttest.admit(request, body: bytes, for: "registration")
        // A ticket names its user; the username, when sent too, must be theirs.
        let (ticket, ticketHolder) = try await presentedTicket(body.enrollmentTicket)
        guard let requestedName = body.username ?? ticketHolder?.username else {
            throw APIError.badRequest("username is missing; send a username, or an enrollmentTicket that names the user")
        }
        // Accounts are kept under the folded name; the authenticator shows the name as typed. An account kept under
        // earlier rules (`../bob`, refused today) keeps its name: its ticket or session may still add a passkey.
        let (spelling, username): (String, String)
        do {
            let typed = try UserNames.spelling(requestedName)
            (spelling, username) = (typed, try UserNames.folded(typed))
        } catch let refusal {
            guard let kept = try await keptAccount(named: body.username, ticketHolder: ticketHolder) else { throw refusal }
            (spelling, username) = (kept.username, kept.username)
        }
        if let ticketHolder, ticketHolder.username != username {
            throw APIError(.forbidden, "this enrollment ticket is for another user, not \"\(username)\"")
        }
        let requestedDisplayName = try body.displayName.flatMap { $0.isEmpty ? nil : $0 }.map { try UserNames.displayName($0) }
        let displayName = requestedDisplayName ?? spelling
        // The server's minimums, not the client, decide what the ceremony requires.
        let ceremonies = services.policy.ceremonies
        let userVerification = ceremonies.userVerification(requested: body.authenticatorSelection?.userVerification)
        let attestation = ceremonies.attestation(
            requested: body.attestation, policyNeedsStatement: services.attestationTrust.policy.wantsAttestationStatement)

        let existing: UserRecord? = if let ticketHolder { ticketHolder } else { try await services.store.user(named: username) }
        let conditional = try admit(username: username, existing: existing, withTicket: ticket != nil, mediation: body.mediation, context: context)
        // A ticket's holder is checked with the ticket, and a disabled account's sessions count as none: only
        // conformance mode, where anyone may add a passkey, gets here for a disabled account.
        if let existing, existing.disabled { throw ServiceError.accountDisabled(existing.username) }
        let excluded = if let existing { try await services.store.credentials(ofUser: existing.handle) } else { [CredentialRecord]() }
        let userHandle = try existing?.handle ?? SecureRandom.bytes(count: 64)
        let issued = try await services.challenges.issue(
            .registration, for: request, userHandle: userHandle, username: existing?.username ?? username,
            displayName: existing?.displayName ?? displayName, userVerification: userVerification, client: context.clientAddress,
            enrollmentTicketHash: ticket?.hash, conditional: conditional, nonce: nonce)

        let shownName = services.policy.optionsDisplayName == .requested ? displayName : (existing?.displayName ?? displayName)
        return issued.response(CreationOptionsReply(
            rp: .init(id: services.relyingParty.id, name: services.relyingParty.name),
            user: .init(id: Base64URLBytes(userHandle), name: spelling, displayName: shownName),
            challenge: Base64URLBytes(issued.challenge),
            pubKeyCredParams: services.relyingParty.algorithms.map { .init(alg: $0.rawValue) },
            timeout: services.timeoutMilliseconds,
            excludeCredentials: excluded.map(CredentialDescriptor.init),
            // The effective values (echoed as asked in conformance mode, where the tools deep-compare them).
            authenticatorSelection: ceremonies.authenticatorSelection(requested: body.authenticatorSelection),
            attestation: attestation,
            hints: body.hints, attestationFormats: body.attestationFormats,
            extensions: body.extensions?.members ?? ["credProps": .bool(true)]))
    }

    /// The account a name today's rules refuse stands for, when one is kept under it: the ticket's holder (when the
    /// request names no one else), or the account the earlier rules find.
    private func keptAccount(named requested: String?, ticketHolder: UserRecord?) async throws -> UserRecord? {
        guard let requested else { return ticketHolder }
        let found = try await UserNames.find(requested) { try await services.store.user(named: $0) }.account
        guard let ticketHolder else { return found }
        return found?.handle == ticketHolder.handle ? ticketHolder : nil
    }

    /// The enrollment ticket presented, if any, with the user it names; a 403 saying why one
    /// cannot be used.
    private func presentedTicket(_ presented: String?) async throws -> (EnrollmentTicketRecord?, UserRecord?) {
        guard let presented else { return (nil, nil) }
        let ticket = try await services.tickets.usable(presented)
        return (ticket, try await services.tickets.holder(ticket.userHandle))
    }

    /// Who may register: a username that exists gets another passkey only from its own signed-in
    /// session or with a ticket for it; a new one only where registration is open; a conditional
    /// create (returned true) only upgrades an account the request has proven to hold. A 403 (or a
    /// 400 for a mediation that does not apply) says who may otherwise.
    private func admit(
        username: String, existing: UserRecord?, withTicket: Bool, mediation: CreationMediation?, context: LatchkeyRequestContext
    ) throws -> Bool {
        let ownerSignedIn = existing != nil && context.identity?.user.handle == existing?.handle
        // A session adds a passkey only soon after its sign-in, so a leaked token cannot add one of its own.
        if ownerSignedIn, !withTicket, let session = context.identity?.session {
            try services.policy.requireRecentSignIn(of: session, adding: "a passkey")
        }
        if !withTicket, !ownerSignedIn {
            // Where tickets are required, the same refusal whether the username exists or not: it tells
            // nobody which names are taken.
            if services.policy.newUsernameRegistration == .ticketRequired {
                throw APIError(
                    .forbidden,
                    "registration on this server needs an enrollment ticket: the service you have an account with issues one (send it as enrollmentTicket); a registered user signs in to add a passkey")
            }
            if existing != nil, services.policy.existingUsernameRegistration == .ownerSignedIn {
                throw APIError(.forbidden, "username \"\(username)\" is already registered; sign in as \(username) to add a passkey")
            }
        }
        switch mediation {
        case .conditional?:
            guard withTicket || ownerSignedIn else {
                throw APIError(
                    .forbidden,
                    "mediation \"conditional\" (an automatic passkey upgrade) is only for a signed-in user adding a passkey, or with an enrollment ticket")
            }
            return true
        case .silent?:
            throw APIError.badRequest("mediation \"silent\" does not apply to creating a passkey; use \"conditional\" or \"required\"")
        case .required?, .optional?, nil:
            return false
        }
    }

    @Sendable func result(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let credential = try await request.decode(as: RegistrationCredential.self, context: context)
        let credentialID = try CredentialChecks.credentialID(id: credential.id, rawId: credential.rawId)
        let clientDataJSON = try CredentialChecks.required(credential.response.clientDataJSON, "response.clientDataJSON")
        let attestationObject = try CredentialChecks.required(credential.response.attestationObject, "response.attestationObject")
        let transports = AuthenticatorTransport.known(credential.response.transports ?? [])

        // Client data is parsed once: for the challenge here, and for §7.1 steps 7-10 below.
        let clientData = try CollectedClientData(clientDataJSON)
        let challenge = try ChallengeIssuer.challenge(answeredBy: clientData)
        let pending = try await services.challenges.take(.registration, challenge: challenge, request: request)
        guard let userHandle = pending.userHandle, let username = pending.username else {
            throw ServiceError.internalInvariant("a pending registration names no user")
        }

        let verifier = RegistrationVerifier(relyingParty: services.relyingParty, trust: services.attestationTrust)
        let verified = try services.metrics.timeVerification(.registrationResult) { try verifier.verify(
            RegistrationResponse(
                credentialID: credentialID, clientDataJSON: clientDataJSON, attestationObject: attestationObject,
                transports: transports, residentKey: credential.extensionResults?.credProps?.rk),
            clientData: clientData,
            expecting: pending.conditional
                // A conditional create may lack user presence, and the verification minimum does not apply.
                ? RegistrationExpectation(challenge: challenge, userVerification: .preferred, mediation: .conditional)
                : RegistrationExpectation(
                    challenge: challenge, userVerification: services.policy.ceremonies.userVerification(requested: pending.userVerification)))
        }
        // A client that reports a non-discoverable credential did not honour `residentKey: required`.
        if services.policy.ceremonies.clientChoices == .raisedToMinimums, services.policy.ceremonies.residentKey == .required,
           verified.residentKey == false {
            throw APIError.badRequest(
                "the authenticator made a passkey that is not discoverable (credProps.rk is false); this server requires discoverable passkeys (residentKey required)")
        }

        let now = Date()
        let existing = try await services.store.user(handle: userHandle)
        if let existing, existing.disabled { throw ServiceError.accountDisabled(existing.username) }
        // A new user's handle is made with the options and has no history; one with a history belonged to the
        // account the options were for, deleted since (its deletion is an event), which must not come back.
        if existing == nil, try await !services.store.securityEvents(SecurityEventQuery(userHandle: userHandle, limit: 1)).isEmpty {
            throw APIError(
                .forbidden, "the account \(username.debugDescription) was deleted while this passkey was being registered; start again")
        }
        // A passkey added through a session needs the session still live, and its sign-in still recent, when the
        // result comes: signing out, or the backend ending the sessions, stops a registration already under way, and
        // options asked for just inside `reauthenticateAfter` do not stretch it by the challenge's lifetime.
        if let existing, pending.enrollmentTicketHash == nil, services.policy.existingUsernameRegistration == .ownerSignedIn {
            guard let identity = context.identity, identity.user.handle == existing.handle else {
                // The commonest cause first: a client that sent its session with the options only.
                throw services.sessions.tokenHashes(in: request).isEmpty
                    ? APIError(
                        .forbidden,
                        "adding a passkey to \(existing.username.debugDescription) needs that user's session with the result too: send the session that asked for the options (Authorization: Bearer, or its cookie)")
                    : APIError(
                        .forbidden,
                        "adding a passkey to \(existing.username.debugDescription) needs that user's session, and it has ended (signed out, or ended by the service); sign in and start again")
            }
            try services.policy.requireRecentSignIn(of: identity.session, now: now, adding: "a passkey")
        }
        let newUser = existing == nil
            ? UserRecord(handle: userHandle, username: username, displayName: pending.displayName ?? username, createdAt: now)
            : nil
        guard let owner = existing ?? newUser else { throw ServiceError.internalInvariant("a registration without a user") }
        let record = CredentialRecord(verified: verified, userHandle: userHandle, createdAt: now)
        // A first registration, and one under an enrollment ticket, signs the user in, in the same
        // transaction that spends the ticket.
        let ticketHash = pending.enrollmentTicketHash
        let session = newUser != nil || ticketHash != nil ? try services.sessions.make(for: userHandle, now: now) : nil
        let origin = context.eventOrigin(request)
        var events: [SecurityEvent] = []
        if let newUser { events.append(try services.events.event(.userCreated, origin, user: newUser, at: now)) }
        if ticketHash != nil { events.append(try services.events.event(.enrollmentTicketUsed, origin, user: owner, at: now)) }
        events.append(try services.events.event(
            .passkeyRegistered, origin, user: owner, credential: record, detail: pending.conditional ? "conditional" : nil, at: now))
        do {
            try await services.store.register(NewRegistration(
                credential: record, newUser: newUser, session: session?.record,
                endingSessions: session == nil ? [] : services.sessions.tokenHashes(in: request),
                spendingTicket: ticketHash.map { ($0, now) }, events: events))
        } catch let error as StoreError where error.code == .ticketNotUsable {
            throw await services.tickets.refusal(forSpending: ticketHash ?? [], now: now)
        }
        context.logger.info("passkey registered", metadata: [
            "user": .quoted(username), "credential": "\(LatchkeyServices.logID(verified.credentialID))",
            "format": "\(verified.attestationFormat)", "attestation": "\(verified.attestation.type.rawValue)",
            "trusted": "\(verified.attestationTrusted)", "newUser": "\(newUser != nil)", "enrollmentTicket": "\(ticketHash != nil)",
            "conditional": "\(pending.conditional)",
        ])
        let idToken = try await services.tokens.issue(
            for: owner, credentialID: verified.credentialID, userVerified: verified.userVerified, nonce: pending.nonce, now: now)

        var response = JSONResponse.make(RegistrationReply(
            username: existing?.username ?? username, credentialId: Base64URLBytes(verified.credentialID),
            attestationFormat: record.attestationFormat, attestationType: record.attestationType,
            attestationTrusted: verified.attestationTrusted, userVerified: verified.userVerified,
            sessionToken: session?.token, idToken: idToken))
        response.setCookie(services.challenges.clearingCookie(.registration))
        if let session { response.setCookie(services.sessions.cookie(for: session.token)) }
        return response
    }
}
