import Foundation
import Hummingbird
import LatchkeyStore
import Logging
import WebAuthn

/// `POST /assertion/options` and `POST /assertion/result`: signing in with a passkey, with or
/// without a username.
struct AuthenticationEndpoints: Sendable {
    let services: LatchkeyServices

    func options(_ request: Request) async throws -> Response {
        let body = try await RequestJSON.read(request)
        let username = try body.optionalString("username").flatMap { $0.isEmpty ? nil : $0 }.map(UserNames.username)
        let userVerification = try body.optionalUserVerification("userVerification") ?? .preferred
        _ = try body.optionalObject("extensions")

        var user: UserRecord?
        var allowed: [CredentialRecord] = []
        if let username {
            guard let found = try await services.store.user(named: username) else {
                throw APIError(.notFound, "user \"\(username)\" is not registered")
            }
            user = found
            allowed = try await services.store.credentials(ofUser: found.handle)
        }
        let issued = try await services.challenges.issue(
            .authentication, userHandle: user?.handle, username: user?.username, displayName: nil,
            userVerification: userVerification)

        var options: [String: JSONValue] = [
            "challenge": .string(Base64URL.encode(issued.challenge)),
            "timeout": services.timeoutMilliseconds,
            "rpId": .string(services.relyingParty.id),
            "allowCredentials": .array(allowed.map(\.descriptor)),
            "userVerification": .string(userVerification.rawValue),
        ]
        if let requested = body.raw("extensions") { options["extensions"] = requested }
        return ChallengeIssuer.optionsResponse(options, issued: issued)
    }

    func result(_ request: Request, logger: Logger) async throws -> Response {
        let credential = try await CredentialJSON.read(request)
        let authenticatorData = try credential.response.requiredBytes("authenticatorData")
        let signature = try credential.response.requiredBytes("signature")
        let userHandle = try credential.response.optionalBytes("userHandle")

        let clientData = try CollectedClientData(credential.clientDataJSON)
        let taken = try await services.challenges.take(.authentication, answeredBy: clientData, request: request)
        let pending = taken.pending

        guard let record = try await services.store.credential(id: credential.id) else {
            throw APIError.badRequest("this passkey is not registered with \(services.relyingParty.id)")
        }
        // §7.2 step 5: when the user was named, the credential must be one of theirs.
        if let expectedUser = pending.userHandle, !constantTimeEquals(expectedUser, record.userHandle) {
            throw APIError.badRequest("this passkey does not belong to the user who asked to sign in")
        }
        let verified: VerifiedAuthentication
        do {
            verified = try AuthenticationVerifier(relyingParty: services.relyingParty).verify(
                AuthenticationResponse(
                    credentialID: credential.id, clientDataJSON: credential.clientDataJSON,
                    authenticatorData: authenticatorData, signature: signature, userHandle: userHandle),
                expecting: AuthenticationExpectation(
                    challenge: taken.challenge, userVerification: taken.userVerification, publicKey: record.publicKey,
                    storedSignCount: record.signCount, userHandle: record.userHandle,
                    userHandleRequired: pending.userHandle == nil, storedBackupEligible: record.backupEligible))
        } catch let error as WebAuthnError where error.code == .signCountRegression {
            // A counter that goes backwards may mean a cloned authenticator: refuse, and mark the passkey.
            // The refusal is what matters; a failure to mark is logged, not put in its place.
            do {
                try await services.store.recordSignCountRegression(credentialID: record.id)
            } catch {
                logger.error("could not mark a counter regression", metadata: ["error": "\(error)"])
            }
            logger.warning("signature counter regression: possible cloned authenticator", metadata: [
                "credential": "\(LatchkeyServices.logID(record.id))", "stored": "\(record.signCount)",
            ])
            throw error
        }
        if verified.backupEligibilityChanged {
            logger.warning("backup eligibility (BE) changed since registration", metadata: [
                "credential": "\(LatchkeyServices.logID(record.id))", "registered": "\(record.backupEligible)",
            ])
        }

        let now = Date()
        let recorded = try await services.store.recordSignIn(
            credentialID: record.id, previousSignCount: record.signCount, signCount: verified.signCount,
            backedUp: verified.backedUp, at: now)
        guard recorded else {
            // Another sign-in with this passkey moved the counter between reading and writing it.
            throw APIError.badRequest("another sign-in with this passkey happened at the same moment; try again")
        }
        guard let user = try await services.store.user(handle: record.userHandle) else {
            throw StoreError(.userNotFound, "the owner of this passkey no longer exists")
        }
        let token = try await services.sessions.start(for: user.handle, replacing: request, now: now)
        logger.info("signed in", metadata: [
            "user": "\(user.username.debugDescription)", "credential": "\(LatchkeyServices.logID(record.id))",
            "usernameless": "\(pending.userHandle == nil)", "userVerified": "\(verified.userVerified)",
        ])
        var response = JSONResponse.ok([
            "username": .string(user.username),
            "displayName": .string(user.displayName),
            "credentialId": .string(Base64URL.encode(record.id)),
            "userVerified": .bool(verified.userVerified),
            "sessionToken": .string(token),
        ])
        response.setCookie(services.challenges.clearingCookie(.authentication))
        response.setCookie(services.sessions.cookie(for: token))
        return response
    }
}
