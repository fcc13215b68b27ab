import Foundation
import LatchkeyStore
import Logging
import WebAuthn

/// Signing in with a passkey (§7.2), with or without a username: the request options (§5.5), then the answer.
/// An answer costs two store round trips: one that reads the challenge's ceremony and the credential with its
/// owner, one that consumes the ceremony, records the sign-in and starts the session. A failed answer costs a
/// third, which spends its challenge.
package struct SignInService: Sendable {
    let service: RelyingPartyService

    /// Request options: for the user `request` names (their passkeys listed), or for anyone (usernameless). Under
    /// `hideUnknownUsers` a name nobody has gets options like a registered user's, which no answer satisfies.
    package func options(
        _ request: SignInOptionsRequest, caller: Caller, presented binding: CeremonyBinding
    ) async throws -> IssuedOptions<RequestOptions> {
        let requested = request.username.flatMap { $0.isEmpty ? nil : $0 }
        let nonce = try TokenNonce.checked(request.nonce)
        let userVerification = service.policy.ceremonies.userVerification(requested: request.userVerification)
        let hidesUnknownUsers = service.configuration.hideUnknownUsers

        var username: String?
        var userHandle: [UInt8]?
        var allowed: [CredentialDescriptor] = []
        if let requested {
            let (first, account) = try await UserNames.find(requested) { try await service.store.userWithCredentials(named: $0) }
            username = first
            if let found = account {
                username = found.user.username
                userHandle = found.user.handle
                allowed = found.credentials.map(CredentialDescriptor.init)
                // An account with no passkey yet (made through the admin API) would stand out from
                // the decoys' one-entry lists; its sign-in fails the same way.
                if allowed.isEmpty, hidesUnknownUsers {
                    allowed = try await service.decoys.decoy(for: first).allowCredentials
                }
            } else if hidesUnknownUsers {
                // Options like a registered user's; the ceremony is for a user who does not exist,
                // so any answer fails as a wrong or unknown passkey would.
                (allowed, userHandle) = try await service.decoys.decoy(for: first)
            } else {
                throw ServiceError(.notFound, "user \"\(first)\" is not registered")
            }
        }
        let issued = try await service.challenges.issue(
            .signIn,
            for: Challenges.Purpose(
                userHandle: userHandle, username: userHandle == nil ? nil : username, userVerification: userVerification, nonce: nonce),
            client: caller.client, presented: binding)
        let options = RequestOptions(
            challenge: Base64URLBytes(issued.challenge), timeout: service.timeoutMilliseconds,
            rpId: service.relyingParty.id, allowCredentials: allowed,
            userVerification: userVerification, hints: request.hints, extensions: request.extensions?.members)
        return IssuedOptions(options: options, bindings: issued.bindings)
    }

    /// Verifies an answer to sign-in options and signs its passkey's owner in.
    package func finish(_ credential: SignInCredential, caller: Caller, presented binding: CeremonyBinding) async throws -> SignedIn {
        let answer = try SignInAnswer(credential)
        let credentialID = answer.response.credentialID
        // §7.2 step 12: the ceremony is found by the challenge the client data carries; it is read here and
        // consumed with the sign-in's record (one write transaction), or, when the answer fails, consumed all
        // the same below: a challenge is answered once.
        let challenge = try Challenges.challenge(answeredBy: answer.clientData)
        let challengeHash = Digest.sha256(challenge)
        let lookup = try await service.store.signInLookup(challengeHash: challengeHash, credentialID: credentialID)
        let pending: PendingCeremony, record: CredentialRecord, owner: UserRecord
        let verified: VerifiedSignIn, session: Sessions.Started
        let now = Date()
        // Set once the answer is to a live challenge issued for this passkey's owner. A failure is the
        // owner's refused sign-in, worth an event, only then and only when the passkey signed the
        // answer: anyone can ask for options naming a user and send a made-up signature.
        var answersLiveChallenge = false
        do {
            pending = try service.challenges.check(lookup.ceremony, kind: .signIn, presented: binding)
            // A passkey whose account was deleted between its rows being read is unknown, as it now is.
            guard let found = lookup.credential, let foundOwner = lookup.owner else {
                throw ServiceError.unknownCredential(credentialID, rpID: service.relyingParty.id)
            }
            (record, owner) = (found, foundOwner)
            // §7.2 step 5: when the user was named, the credential must be one of theirs.
            if let expectedUser = pending.userHandle, !constantTimeEquals(expectedUser, record.userHandle) {
                throw ServiceError.invalid("this passkey does not belong to the user who asked to sign in")
            }
            answersLiveChallenge = true
            verified = try await verify(answer, pending: pending, record: record, owner: owner, caller: caller)
            // Refused once the passkey has signed, so the refusal is the owner's, recorded as such.
            guard !owner.disabled else { throw ServiceError.accountDisabled(owner.username) }

            session = try service.sessions.make(
                for: owner.handle, methods: Sessions.methods(deviceBound: !record.backupEligible, userVerified: verified.userVerified), now: now)
            let recorded = try await service.store.recordSignIn(CompletedSignIn(
                challengeHash: challengeHash, credentialID: record.id, previousSignCount: record.signCount,
                signCount: verified.signCount, backedUp: verified.backedUp, userVerified: verified.userVerified, at: now,
                session: session.record, endingSessions: caller.sessionTokenHashes,
                events: [try service.events.event(
                    .signInSucceeded, caller.origin, user: owner, credential: record,
                    fact: pending.userHandle == nil ? .usernameless : nil, at: now)]))
            try SignCounter.check(recorded, credentialID: credentialID, rpID: service.relyingParty.id)
        } catch {
            throw await refusal(error, of: answer, lookup: lookup, challengeHash: challengeHash, answersLiveChallenge: answersLiveChallenge, caller: caller)
        }
        caller.logger.info("signed in", metadata: [
            "user": .quoted(owner.username), "credential": "\(RelyingPartyService.logID(record.id))",
            "usernameless": "\(pending.userHandle == nil)", "userVerified": "\(verified.userVerified)",
        ])
        let idToken = try await service.signInToken(
            for: owner, credentialID: record.id, userVerified: verified.userVerified, nonce: pending.nonce, now: now)
        return SignedIn(user: owner, credentialID: record.id, userVerified: verified.userVerified, session: session, idToken: idToken)
    }

    /// What a failed answer is refused with, once its challenge is spent and, when it is the owner's refusal,
    /// recorded: a store failure is the server's; a refusal is the owner's only when their passkey signed the answer
    /// (a signature check more, made only when it matters).
    private func refusal(
        _ error: any Error, of answer: SignInAnswer, lookup: SignInLookup, challengeHash: [UInt8], answersLiveChallenge: Bool,
        caller: Caller
    ) async -> any Error {
        if lookup.ceremony != nil { await service.challenges.spend(challengeHash, of: .signIn, logger: caller.logger) }
        guard !(error is StoreError) else { return error }
        let hidesUsers = service.configuration.hideUnknownUsers && lookup.ceremony?.userHandle != nil
        let signed = (answersLiveChallenge || hidesUsers)
            && lookup.credential.map { service.authenticationVerifier.isSigned(answer.response, byKey: $0.publicKey) } == true
        if answersLiveChallenge, signed, let credential = lookup.credential, let owner = lookup.owner {
            await service.recordRefusedSignIn(of: owner, credential: credential, because: error, origin: caller.origin, logger: caller.logger)
        }
        // A decoy's answer can only be refused as an unknown passkey; an answer its passkey did not sign, to
        // options that named a user, is refused the same way, or a made-up answer with a listed ID would
        // tell a real account's list from a decoy (refused for the signature, the origin, or as another
        // user's passkey when sent to a name nobody has).
        if hidesUsers, !signed { return ServiceError.unknownCredential(answer.response.credentialID, rpID: service.relyingParty.id) }
        return error
    }

    /// §7.2 steps 6-22 on the stored credential. A counter that goes backwards may mean a cloned authenticator
    /// (step 22, ``SignCounter``): the sign-in is refused and the passkey marked.
    private func verify(
        _ answer: SignInAnswer, pending: PendingCeremony, record: CredentialRecord, owner: UserRecord, caller: Caller
    ) async throws -> VerifiedSignIn {
        let expectation = SignInExpectation(
            challenge: .foundByTheAnswer,
            userVerification: service.policy.ceremonies.userVerification(requested: pending.userVerification),
            publicKey: record.publicKey, storedSignCount: record.signCount, userHandle: record.userHandle,
            userHandleRequired: pending.userHandle == nil, storedBackupEligible: record.backupEligible)
        let verified: VerifiedSignIn
        do {
            verified = try service.metrics.timeVerification(.signInResult) {
                try service.authenticationVerifier.verify(answer.response, clientData: answer.clientData, expecting: expectation)
            }
        } catch let error as WebAuthnError where error.code == .signCountRegression {
            await SignCounter(service: service).markRegression(of: record, owner: owner, caller: caller)
            throw error
        }
        if verified.backupEligibilityChanged {
            caller.logger.warning("backup eligibility (BE) changed since registration; accepted by backupEligibilityChanges", metadata: [
                "credential": "\(RelyingPartyService.logID(record.id))", "registered": "\(record.backupEligible)",
            ])
        }
        return verified
    }
}

/// A sign-in answer once its members are checked: the response the verifier reads, and its client data, parsed
/// once (for the challenge, and for §7.2 steps 10-14).
struct SignInAnswer {
    let response: SignInResponse
    let clientData: CollectedClientData

    init(_ credential: SignInCredential) throws {
        let credentialID = try CredentialChecks.credentialID(id: credential.id, rawId: credential.rawId)
        let clientDataJSON = try CredentialChecks.required(credential.response.clientDataJSON, "response.clientDataJSON")
        let authenticatorData = try CredentialChecks.required(credential.response.authenticatorData, "response.authenticatorData")
        let signature = try CredentialChecks.required(credential.response.signature, "response.signature")
        let userHandle = credential.response.userHandle.flatMap { $0.bytes.isEmpty ? nil : $0.bytes }
        clientData = try CollectedClientData(clientDataJSON)
        response = SignInResponse(
            credentialID: credentialID, clientDataJSON: clientDataJSON, authenticatorData: authenticatorData, signature: signature,
            userHandle: userHandle)
    }
}
