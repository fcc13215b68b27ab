/// Verifies a sign-in: WebAuthn Level 3 §7.2 "Verifying an Authentication Assertion", steps 6-22.
/// Step 5 (allowCredentials) and finding the credential record are the caller's.
public struct SignInVerifier: Sendable {
    public let relyingParty: RelyingParty
    public let decoder: CBORDecoder
    /// Parsed credential keys reused across sign-ins; nil parses the stored key on every sign-in.
    public let keyCache: CredentialKeyCache?

    public init(relyingParty: RelyingParty, decoder: CBORDecoder = CBORDecoder(), keyCache: CredentialKeyCache? = nil) {
        self.relyingParty = relyingParty
        self.decoder = decoder
        self.keyCache = keyCache
    }

    /// Runs every check of §7.2 on `response` against the issued challenge and the stored
    /// credential, and returns the new counter and flags to record. Throws ``WebAuthnError`` with the
    /// code of the first check that failed (for example ``WebAuthnError/Code/userHandleMismatch``,
    /// ``WebAuthnError/Code/invalidSignature`` or ``WebAuthnError/Code/signCountRegression``).
    public func verify(_ response: SignInResponse, expecting expectation: SignInExpectation) throws -> VerifiedSignIn {
        try verify(response, parsedClientData: nil, expecting: expectation)
    }

    /// As ``verify(_:expecting:)``, with `clientData` already parsed from `response.clientDataJSON`
    /// (a server reads it first to find the challenge). Throws
    /// ``WebAuthnError/Code/malformedClientData`` when `clientData` was parsed from other bytes.
    public func verify(_ response: SignInResponse, clientData: CollectedClientData, expecting expectation: SignInExpectation) throws -> VerifiedSignIn {
        try verify(response, parsedClientData: clientData, expecting: expectation)
    }

    /// Whether `response.signature` verifies over its authenticator data and the hash of its client
    /// data with the credential key `publicKey` (steps 19-21 alone, nothing else checked): whether the
    /// response came from the passkey, whatever else is wrong with it.
    public func isSigned(_ response: SignInResponse, byKey publicKey: [UInt8]) -> Bool {
        guard let key = try? credentialKey(publicKey, of: response.credentialID) else { return false }
        let clientDataHash = Digest.sha256(response.clientDataJSON)
        return (try? key.verify(signature: response.signature, over: response.authenticatorData, followedBy: clientDataHash)) != nil
    }

    private func verify(
        _ response: SignInResponse, parsedClientData: CollectedClientData?, expecting expectation: SignInExpectation
    ) throws -> VerifiedSignIn {
        // Step 6: the user handle, when given, names the credential's owner; usernameless sign-in needs it.
        if let userHandle = response.userHandle {
            guard constantTimeEquals(userHandle, expectation.userHandle) else {
                throw WebAuthnError(.userHandleMismatch, "userHandle does not belong to the owner of this credential")
            }
        } else if expectation.userHandleRequired {
            throw WebAuthnError(.userHandleMismatch, "userHandle is required when no username was given")
        }
        // Step 7: the stored credential public key.
        let credentialKey = try credentialKey(expectation.publicKey, of: response.credentialID)

        // Steps 8-10: parse client data (unless the caller did, from these very bytes).
        let clientData: CollectedClientData
        if let parsedClientData {
            guard parsedClientData.bytes == response.clientDataJSON else {
                throw WebAuthnError(.malformedClientData, "the parsed client data was not parsed from this response's clientDataJSON")
            }
            clientData = parsedClientData
        } else {
            clientData = try CollectedClientData(response.clientDataJSON)
        }
        // Steps 11-14: type, challenge, origin, cross-origin.
        try relyingParty.checkClientData(clientData, type: .get, challenge: expectation.challenge)

        // Steps 15-18: RP ID hash, UP, UV, BE/BS.
        let authenticatorData = try AuthenticatorData(response.authenticatorData, decoder: decoder)
        try relyingParty.checkAuthenticatorData(authenticatorData, userVerification: expectation.userVerification)

        // Step 19: hash the client data. Steps 20-21: the signature over authenticatorData ‖ that
        // hash, fed to OpenSSL piece by piece.
        let clientDataHash = Digest.sha256(clientData.bytes)
        try credentialKey.verify(signature: response.signature, over: authenticatorData.bytes, followedBy: clientDataHash)

        // Step 22: the signature counter must grow unless both values are zero.
        let received = authenticatorData.signCount
        let stored = expectation.storedSignCount
        let regressed = SignCountRule.regressed(received: received, stored: stored)
        if regressed, relyingParty.signCount == .refuseRegression {
            throw WebAuthnError(.signCountRegression, "signature counter \(received) is not greater than the stored \(stored): the authenticator may be cloned")
        }
        // §7.2 step 18: BE must not change over a credential's life; the policy decides what a change means.
        let eligible = authenticatorData.flags.contains(.backupEligible)
        let eligibilityChanged = expectation.storedBackupEligible.map { $0 != eligible } ?? false
        if eligibilityChanged, relyingParty.backupEligibilityChanges == .refused {
            throw WebAuthnError(.invalidBackupFlags, "authenticator data BE is \(eligible ? 1 : 0) but was \(eligible ? 0 : 1) at registration")
        }
        return VerifiedSignIn(
            credentialID: response.credentialID, signCount: received,
            flags: authenticatorData.flags, signCountRegressed: regressed,
            backupEligibilityChanged: eligibilityChanged,
            extensions: AuthenticatorExtensionOutputs(authenticatorData.extensions))
    }

    /// The stored credential public key, parsed once per stored value when a cache is given.
    private func credentialKey(_ publicKey: [UInt8], of credentialID: [UInt8]) throws -> COSEKey {
        try keyCache?.key(for: credentialID, publicKey: publicKey, decoder: decoder) ?? COSEKey(decoder.decode(publicKey))
    }
}
