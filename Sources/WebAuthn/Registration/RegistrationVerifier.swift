/// Verifies a registration: WebAuthn Level 3 §7.1 "Registering a New Credential", steps 5-24.
/// Steps 25-27 (credential ID not yet registered, storing the record) belong to the caller's store.
public struct RegistrationVerifier: Sendable {
    public let relyingParty: RelyingParty
    public let formats: AttestationFormats
    public let trust: AttestationTrust
    public let decoder: CBORDecoder

    public init(relyingParty: RelyingParty, trust: AttestationTrust = .acceptAny, formats: AttestationFormats = .all, decoder: CBORDecoder = CBORDecoder()) {
        self.relyingParty = relyingParty
        self.trust = trust
        self.formats = formats
        self.decoder = decoder
    }

    /// Runs every check of §7.1 on `response` against what the server issued, and returns the
    /// credential to store. Throws ``WebAuthnError`` with the code of the first check that failed
    /// (for example ``WebAuthnError/Code/challengeMismatch``, ``WebAuthnError/Code/originMismatch``,
    /// ``WebAuthnError/Code/invalidSignature`` or ``WebAuthnError/Code/untrustedAttestation``).
    public func verify(_ response: RegistrationResponse, expecting expectation: RegistrationExpectation) throws -> VerifiedRegistration {
        // Steps 5-6: parse clientDataJSON.
        try verify(response, clientData: try CollectedClientData(response.clientDataJSON), expecting: expectation)
    }

    /// ``verify(_:expecting:)`` on client data the caller parsed already (a server reads the
    /// challenge from it first, to find the ceremony): `clientData` must be `response.clientDataJSON`'s.
    public func verify(
        _ response: RegistrationResponse, clientData: CollectedClientData, expecting expectation: RegistrationExpectation
    ) throws -> VerifiedRegistration {
        guard clientData.bytes == response.clientDataJSON else {
            throw WebAuthnError(.malformedClientData, "the parsed client data is not the response's clientDataJSON")
        }
        // Steps 7-10: type, challenge, origin, cross-origin.
        try relyingParty.checkClientData(clientData, type: .create, challenge: expectation.challenge)
        // Step 11: hash the client data.
        let clientDataHash = Digest.sha256(response.clientDataJSON)

        // Step 12: decode the attestation object into fmt, authData and attStmt.
        let attestationObject = try AttestationObject(response.attestationObject, decoder: decoder)
        let authenticatorData = attestationObject.authenticatorData

        // Steps 13-16: RP ID hash, UP (unless the create was conditional), UV, BE/BS consistency.
        let rpID = try relyingParty.checkAuthenticatorData(
            authenticatorData, userVerification: expectation.userVerification,
            userPresenceRequired: expectation.mediation != .conditional)

        if relyingParty.syncedCredentials == .refused, authenticatorData.flags.contains(.backupEligible) {
            throw WebAuthnError(.invalidBackupFlags, "the credential can be synced to other devices (BE set), and only device-bound credentials are accepted")
        }
        guard let attested = authenticatorData.attestedCredentialData else {
            throw WebAuthnError(.missingAttestedCredentialData, "authenticator data carries no attested credential data (AT flag clear)")
        }
        // Step 19: the credential algorithm is one the relying party offered.
        let credentialKey = try COSEKey(attested.publicKey)
        guard relyingParty.algorithms.contains(credentialKey.algorithm) else {
            throw WebAuthnError(.algorithmNotAllowed, "credential algorithm \(credentialKey.algorithm) was not offered in pubKeyCredParams")
        }
        // The credential ID kept is the one inside the signed authenticator data. §7.1 does not ask
        // the JSON `id` to equal it, and real clients (an iOS capture among the vectors) differ.

        // Steps 21-22: verify the statement of a known format.
        let input = AttestationInput(
            statement: attestationObject.statement, authenticatorData: authenticatorData,
            clientDataHash: clientDataHash, credentialKey: credentialKey,
            verificationTime: trust.verificationTime, allowSHA1: trust.policy.allowSHA1)
        let attestation = try formats.verify(format: attestationObject.format, input)
        // Step 23: is the attestation trustworthy enough for the policy?
        let trusted = try trust.evaluate(attestation, format: attestation.format ?? attestationObject.format, aaguid: attested.aaguid)

        // Step 24: credential IDs are at most 1023 bytes (enforced while parsing authenticator data).
        return VerifiedRegistration(
            credentialID: attested.credentialID, publicKey: attested.publicKeyBytes,
            algorithm: credentialKey.algorithm, signCount: authenticatorData.signCount,
            aaguid: attested.aaguid, attestationFormat: AttestationFormatIdentifier(rawValue: attestationObject.format),
            attestation: attestation, attestationTrusted: trusted, flags: authenticatorData.flags,
            transports: response.transports, residentKey: response.residentKey, rpID: rpID,
            extensions: AuthenticatorExtensionOutputs(authenticatorData.extensions))
    }
}
