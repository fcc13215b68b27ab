import Foundation
import Hummingbird
import LatchkeyService
import LatchkeyStore
import Logging
import WebAuthn

/// `POST /assertion/options` and `POST /assertion/result`: signing in with a passkey (§7.2), with
/// or without a username. A result costs two store round trips: one that reads the challenge's
/// ceremony and the credential with its owner, one that consumes the ceremony, records the sign-in
/// and starts the session. A failed answer costs a third, which spends its challenge.
struct AuthenticationController: Sendable {
    let services: LatchkeyServices
    let decoys: UnknownUserDecoys

    init(services: LatchkeyServices) {
        self.services = services
        decoys = UnknownUserDecoys(store: services.store)
    }

    func addRoutes(to group: RouterGroup<LatchkeyRequestContext>) {
        group.post("options", use: options)
        group.post("result", use: result)
    }

    @Sendable func options(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let body = try await request.decode(as: AuthenticationOptionsRequest.self, context: context)
        let requested = body.username.flatMap { $0.isEmpty ? nil : $0 }
        let nonce = try TokenNonce.checked(body.nonce)
        let userVerification = services.policy.ceremonies.userVerification(requested: body.userVerification)

        var username: String?
        var userHandle: [UInt8]?
        var allowed: [CredentialDescriptor] = []
        if let requested {
            let (first, account) = try await UserNames.find(requested) { try await services.store.userWithCredentials(named: $0) }
            username = first
            if let found = account {
                username = found.user.username
                userHandle = found.user.handle
                allowed = found.credentials.map(CredentialDescriptor.init)
                // An account with no passkey yet (made through the admin API) would stand out from
                // the decoys' one-entry lists; its sign-in fails the same way.
                if allowed.isEmpty, services.configuration.hideUnknownUsers {
                    allowed = try await decoys.decoy(for: first).allowCredentials
                }
            } else if services.configuration.hideUnknownUsers {
                // Options like a registered user's; the ceremony is for a user who does not exist,
                // so any answer fails as a wrong or unknown passkey would.
                (allowed, userHandle) = try await decoys.decoy(for: first)
            } else {
                throw APIError(.notFound, "user \"\(first)\" is not registered")
            }
        }
        let issued = try await services.challenges.issue(
            .authentication, for: request, userHandle: userHandle, username: userHandle == nil ? nil : username, displayName: nil,
            userVerification: userVerification, client: context.clientAddress, nonce: nonce)
        return issued.response(RequestOptionsReply(
            challenge: Base64URLBytes(issued.challenge), timeout: services.timeoutMilliseconds,
            rpId: services.relyingParty.id, allowCredentials: allowed,
            userVerification: userVerification, hints: body.hints, extensions: body.extensions?.members))
    }

    @Sendable func result(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let credential = try await request.decode(as: AuthenticationCredential.self, context: context)
        let credentialID = try CredentialChecks.credentialID(id: credential.id, rawId: credential.rawId)
        let clientDataJSON = try CredentialChecks.required(credential.response.clientDataJSON, "response.clientDataJSON")
        let authenticatorData = try CredentialChecks.required(credential.response.authenticatorData, "response.authenticatorData")
        let signature = try CredentialChecks.required(credential.response.signature, "response.signature")
        let userHandle = credential.response.userHandle.flatMap { $0.bytes.isEmpty ? nil : $0.bytes }

        // Client data is parsed once: for the challenge here, and for §7.2 steps 10-14 below.
        let clientData = try CollectedClientData(clientDataJSON)
        let challenge = try ChallengeIssuer.challenge(answeredBy: clientData)
        // The ceremony is read here and consumed with the sign-in's record (one write transaction),
        // or, when the answer fails, consumed all the same below: a challenge is answered once.
        let challengeHash = Digest.sha256(challenge)
        let lookup = try await services.store.signInLookup(challengeHash: challengeHash, credentialID: credentialID)
        let pending: PendingCeremony, record: CredentialRecord, owner: UserRecord
        let verified: VerifiedAuthentication, session: (token: String, record: SessionRecord)
        let now = Date()
        let origin = context.eventOrigin(request)
        // Set once the answer is to a live challenge issued for this passkey's owner. A failure is the
        // owner's refused sign-in, worth an event, only then and only when the passkey signed the
        // answer: anyone can ask for options naming a user and send a made-up signature.
        var answersLiveChallenge = false
        let answer = AuthenticationResponse(
            credentialID: credentialID, clientDataJSON: clientDataJSON,
            authenticatorData: authenticatorData, signature: signature, userHandle: userHandle)
        do {
            pending = try services.challenges.check(lookup.ceremony, kind: .authentication, request: request)
            guard let found = lookup.credential else {
                throw ServiceError.unknownCredential(credentialID, rpID: services.relyingParty.id)
            }
            // A passkey whose account was deleted between its rows being read: unknown, as it now is.
            guard let foundOwner = lookup.owner else {
                throw ServiceError.unknownCredential(credentialID, rpID: services.relyingParty.id)
            }
            (record, owner) = (found, foundOwner)
            // §7.2 step 5: when the user was named, the credential must be one of theirs.
            if let expectedUser = pending.userHandle, !constantTimeEquals(expectedUser, record.userHandle) {
                throw APIError.badRequest("this passkey does not belong to the user who asked to sign in")
            }
            answersLiveChallenge = true
            verified = try await verify(
                answer, clientData: clientData, challenge: challenge, pending: pending, record: record, owner: owner, origin: origin,
                logger: context.logger)
            // Refused once the passkey has signed, so the refusal is the owner's, recorded as such.
            guard !owner.disabled else { throw ServiceError.accountDisabled(owner.username) }

            session = try services.sessions.make(for: owner.handle, now: now)
            let recorded = try await services.store.recordSignIn(CompletedSignIn(
                challengeHash: challengeHash, credentialID: record.id, previousSignCount: record.signCount,
                signCount: verified.signCount, backedUp: verified.backedUp, userVerified: verified.userVerified, at: now,
                session: session.record, endingSessions: services.sessions.tokenHashes(in: request),
                events: [try services.events.event(
                    .signInSucceeded, origin, user: owner, credential: record,
                    detail: pending.userHandle == nil ? "usernameless" : nil, at: now)]))
            switch recorded {
            case .recorded:
                break
            case .challengeSpent:
                // Another answer to this challenge was recorded between reading and writing it.
                throw APIError.badRequest("clientDataJSON.challenge was answered already; request new options")
            case .counterMoved:
                // Another sign-in with this passkey moved the counter between reading and writing it.
                throw APIError.badRequest("another sign-in with this passkey happened at the same moment; try again")
            case .credentialRemoved:
                // Removed (or its account deleted) while this sign-in was being verified.
                throw ServiceError.unknownCredential(credentialID, rpID: services.relyingParty.id)
            }
        } catch {
            if lookup.ceremony != nil { await spend(challengeHash, logger: context.logger) }
            // A store failure is the server's; a refusal is the owner's only when their passkey signed the
            // answer (a signature check more, made only when it matters).
            guard !(error is StoreError) else { throw error }
            let hidesUsers = services.configuration.hideUnknownUsers && lookup.ceremony?.userHandle != nil
            let signed = (answersLiveChallenge || hidesUsers)
                && lookup.credential.map { services.authenticationVerifier.isSigned(answer, byKey: $0.publicKey) } == true
            if answersLiveChallenge, signed, let credential = lookup.credential, let owner = lookup.owner {
                await services.recordRefusedSignIn(of: owner, credential: credential, because: error, origin: origin, logger: context.logger)
            }
            // A decoy's answer can only be refused as an unknown passkey; an answer its passkey did not sign, to
            // options that named a user, is refused the same way, or a made-up answer with a listed ID would
            // tell a real account's list from a decoy (refused for the signature, the origin, or as another
            // user's passkey when sent to a name nobody has).
            if hidesUsers, !signed { throw ServiceError.unknownCredential(credentialID, rpID: services.relyingParty.id) }
            throw error
        }
        context.logger.info("signed in", metadata: [
            "user": .quoted(owner.username), "credential": "\(LatchkeyServices.logID(record.id))",
            "usernameless": "\(pending.userHandle == nil)", "userVerified": "\(verified.userVerified)",
        ])
        let idToken = try await services.tokens.issue(
            for: owner, credentialID: record.id, userVerified: verified.userVerified, nonce: pending.nonce, now: now)
        var response = JSONResponse.make(SignInReply(
            username: owner.username, displayName: owner.displayName, credentialId: Base64URLBytes(record.id),
            userVerified: verified.userVerified, sessionToken: session.token, idToken: idToken))
        response.setCookie(services.challenges.clearingCookie(.authentication))
        response.setCookie(services.sessions.cookie(for: session.token))
        return response
    }

    /// Consumes the ceremony of an answer that failed, so that its challenge cannot be tried again.
    private func spend(_ challengeHash: [UInt8], logger: Logger) async {
        do {
            _ = try await services.store.takePendingCeremony(challengeHash: challengeHash)
        } catch {
            // It expires all the same; the refusal is what the client needs to hear.
            logger.warning("could not consume the challenge of a failed sign-in", metadata: ["error": "\(error)"])
        }
    }

    /// §7.2 steps 6-22 on the stored credential. A counter that goes backwards may mean a cloned
    /// authenticator: the sign-in is refused and the passkey marked.
    private func verify(
        _ response: AuthenticationResponse, clientData: CollectedClientData, challenge: [UInt8],
        pending: PendingCeremony, record: CredentialRecord, owner: UserRecord, origin: EventOrigin, logger: Logger
    ) async throws -> VerifiedAuthentication {
        let expectation = AuthenticationExpectation(
            challenge: challenge, userVerification: services.policy.ceremonies.userVerification(requested: pending.userVerification),
            publicKey: record.publicKey,
            storedSignCount: record.signCount, userHandle: record.userHandle,
            userHandleRequired: pending.userHandle == nil, storedBackupEligible: record.backupEligible)
        let verified: VerifiedAuthentication
        do {
            verified = try services.metrics.timeVerification(.authenticationResult) {
                try services.authenticationVerifier.verify(response, clientData: clientData, expecting: expectation)
            }
        } catch let error as WebAuthnError where error.code == .signCountRegression {
            // The refusal is what matters; a failure to mark is logged, not put in its place.
            do {
                try await services.store.recordSignCountRegression(
                    credentialID: record.id,
                    recording: [services.events.event(
                        .passkeyCounterRegressed, origin, user: owner, credential: record,
                        detail: "stored counter \(record.signCount)")])
            } catch {
                logger.error("could not mark a counter regression", metadata: ["error": "\(error)"])
            }
            logger.warning("signature counter regression: possible cloned authenticator", metadata: [
                "credential": "\(LatchkeyServices.logID(record.id))", "stored": "\(record.signCount)",
            ])
            throw error
        }
        if verified.backupEligibilityChanged {
            logger.warning("backup eligibility (BE) changed since registration; accepted by backupEligibilityChanges", metadata: [
                "credential": "\(LatchkeyServices.logID(record.id))", "registered": "\(record.backupEligible)",
            ])
        }
        return verified
    }
}
