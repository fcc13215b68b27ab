import Foundation
import Hummingbird
import LatchkeyStore
import Logging
import WebAuthn

/// `POST /attestation/options` and `POST /attestation/result`: registering a passkey.
struct RegistrationEndpoints: Sendable {
    let services: LatchkeyServices

    func options(_ request: Request) async throws -> Response {
        let body = try await RequestJSON.read(request)
        let username = try UserNames.username(body.requiredString("username"))
        let displayName = try body.optionalString("displayName").flatMap { $0.isEmpty ? nil : $0 }.map(UserNames.displayName) ?? username
        let selection = try body.optionalObject("authenticatorSelection")
        let userVerification = try selection?.optionalUserVerification("userVerification") ?? .preferred
        _ = try selection?.optionalString("residentKey")
        _ = try selection?.optionalString("authenticatorAttachment")
        // Ask for a statement when the policy needs one to judge the authenticator.
        let attestation = try body.optionalString("attestation")
            ?? (services.attestationTrust.policy.wantsAttestationStatement ? "direct" : "none")
        guard ["none", "indirect", "direct", "enterprise"].contains(attestation) else {
            throw APIError.badRequest("attestation \"\(attestation)\" is not none, indirect, direct or enterprise")
        }
        _ = try body.optionalObject("extensions")

        // A username that exists gets another passkey only from its own signed-in session.
        let existing = try await services.store.user(named: username)
        var excluded: [CredentialRecord] = []
        if let existing {
            if !services.configuration.conformanceMode {
                let session = try await services.sessions.current(request)
                guard let session, session.userHandle == existing.handle else {
                    throw APIError(.forbidden, "username \"\(username)\" is already registered; sign in as \(username) to add a passkey")
                }
            }
            excluded = try await services.store.credentials(ofUser: existing.handle)
        }
        let userHandle = try existing?.handle ?? SecureRandom.bytes(count: 64)
        let issued = try await services.challenges.issue(
            .registration, userHandle: userHandle, username: existing?.username ?? username,
            displayName: existing?.displayName ?? displayName, userVerification: userVerification)

        // An existing user keeps their display name; the conformance tools want the request's echoed.
        let shownName = services.configuration.conformanceMode ? displayName : (existing?.displayName ?? displayName)
        var options: [String: JSONValue] = [
            "rp": .object(["id": .string(services.relyingParty.id), "name": .string(services.relyingParty.name)]),
            "user": .object([
                "id": .string(Base64URL.encode(userHandle)), "name": .string(username),
                "displayName": .string(shownName),
            ]),
            "challenge": .string(Base64URL.encode(issued.challenge)),
            "pubKeyCredParams": .array(services.relyingParty.algorithms.map {
                .object(["type": .string("public-key"), "alg": .number(Double($0.rawValue))])
            }),
            "timeout": services.timeoutMilliseconds,
            "excludeCredentials": .array(excluded.map(\.descriptor)),
            "attestation": .string(attestation),
        ]
        // Echo what was asked, exactly: the conformance tools deep-compare these members.
        if let requested = body.raw("authenticatorSelection") { options["authenticatorSelection"] = requested }
        if let requested = body.raw("extensions") {
            options["extensions"] = requested
        } else {
            options["extensions"] = .object(["credProps": .bool(true)])
        }
        return ChallengeIssuer.optionsResponse(options, issued: issued)
    }

    func result(_ request: Request, logger: Logger) async throws -> Response {
        let credential = try await CredentialJSON.read(request)
        let attestationObject = try credential.response.requiredBytes("attestationObject")
        let transports = CredentialTransports.filter(try credential.response.optionalStringArray("transports") ?? [])
        let residentKey = try credential.clientExtensionResults?.optionalObject("credProps")?.raw("rk")?.boolValue

        let clientData = try CollectedClientData(credential.clientDataJSON)
        let taken = try await services.challenges.take(.registration, answeredBy: clientData, request: request)
        let pending = taken.pending
        guard let userHandle = pending.userHandle, let username = pending.username else {
            throw StoreError(.database, "the pending registration names no user")
        }

        let verified = try RegistrationVerifier(relyingParty: services.relyingParty, trust: services.attestationTrust).verify(
            RegistrationResponse(
                credentialID: credential.id, clientDataJSON: credential.clientDataJSON,
                attestationObject: attestationObject, transports: transports, residentKey: residentKey),
            expecting: RegistrationExpectation(challenge: taken.challenge, userVerification: taken.userVerification))

        let now = Date()
        let existing = try await services.store.user(handle: userHandle)
        let newUser = existing == nil
            ? UserRecord(handle: userHandle, username: username, displayName: pending.displayName ?? username, createdAt: now)
            : nil
        let record = CredentialRecord(
            id: verified.credentialID, userHandle: userHandle, publicKey: verified.publicKey,
            algorithm: verified.algorithm.rawValue, signCount: verified.signCount, transports: verified.transports,
            aaguid: verified.aaguid, attestationFormat: verified.attestationFormat,
            attestationType: verified.attestation.type.rawValue, attestationTrusted: verified.attestationTrusted,
            trustPath: verified.attestation.trustPath,
            credentialProtectionPolicy: verified.extensions.credentialProtectionPolicy,
            backupEligible: verified.backupEligible,
            backedUp: verified.backedUp, residentKey: verified.residentKey, userVerified: verified.userVerified,
            createdAt: now)
        try await services.store.register(record, newUser: newUser)
        logger.info("passkey registered", metadata: [
            "user": "\(username.debugDescription)", "credential": "\(LatchkeyServices.logID(verified.credentialID))",
            "format": "\(verified.attestationFormat)", "attestation": "\(verified.attestation.type.rawValue)",
            "trusted": "\(verified.attestationTrusted)", "newUser": "\(newUser != nil)",
        ])

        var members: [String: JSONValue] = [
            "username": .string(existing?.username ?? username),
            "credentialId": .string(Base64URL.encode(verified.credentialID)),
            "attestationFormat": .string(verified.attestationFormat),
            "attestationType": .string(verified.attestation.type.rawValue),
            "attestationTrusted": .bool(verified.attestationTrusted),
            "userVerified": .bool(verified.userVerified),
        ]
        var sessionCookie: Cookie?
        if newUser != nil {
            // A first registration signs the new user in.
            let token = try await services.sessions.start(for: userHandle, replacing: request, now: now)
            members["sessionToken"] = .string(token)
            sessionCookie = services.sessions.cookie(for: token)
        }
        var response = JSONResponse.ok(members)
        response.setCookie(services.challenges.clearingCookie(.registration))
        if let sessionCookie { response.setCookie(sessionCookie) }
        return response
    }
}
