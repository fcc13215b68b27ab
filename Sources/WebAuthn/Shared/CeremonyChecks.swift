/// The checks §7.1 (registration) and §7.2 (authentication) share, written once.
extension RelyingParty {
    /// §7.1 steps 7-10 / §7.2 steps 11-14: ceremony type, challenge, origin, cross-origin use,
    /// and (Level 2) token binding.
    func checkClientData(
        _ clientData: CollectedClientData, type: CollectedClientData.CeremonyType, challenge issued: IssuedChallenge
    ) throws {
        guard clientData.type == type.rawValue else {
            throw WebAuthnError(.wrongCeremonyType, "clientDataJSON.type is \"\(clientData.type)\"; expected \"\(type.rawValue)\"")
        }
        guard let challenge = clientData.challengeBytes else {
            throw WebAuthnError(.malformedClientData, "clientDataJSON.challenge is not base64url")
        }
        if case .expected(let expected) = issued, !constantTimeEquals(challenge, expected) {
            throw WebAuthnError(.challengeMismatch, "clientDataJSON.challenge does not match the challenge issued for this ceremony")
        }
        guard origins.contains(clientData.origin) else {
            throw WebAuthnError(.originMismatch, "clientDataJSON.origin \"\(clientData.origin)\" is not an accepted origin")
        }
        switch crossOrigin {
        case .forbid:
            guard !clientData.crossOrigin else {
                throw WebAuthnError(.crossOriginNotAllowed, "clientDataJSON.crossOrigin is true, but cross-origin ceremonies are not accepted")
            }
            guard clientData.topOrigin == nil else {
                throw WebAuthnError(.crossOriginNotAllowed, "clientDataJSON.topOrigin is present, but cross-origin ceremonies are not accepted")
            }
        case .allow(let topOrigins):
            if let topOrigin = clientData.topOrigin, !topOrigins.contains(topOrigin) {
                throw WebAuthnError(.crossOriginNotAllowed, "clientDataJSON.topOrigin \"\(topOrigin)\" is not an accepted top origin")
            }
        }
        switch tokenBinding {
        case .lenient:
            if let status = clientData.tokenBindingStatus, !["present", "supported"].contains(status) {
                throw WebAuthnError(.invalidTokenBinding, "clientDataJSON.tokenBinding.status \"\(status)\" is not present or supported")
            }
        case .strict:
            if clientData.tokenBindingIsMalformed {
                throw WebAuthnError(.invalidTokenBinding, "clientDataJSON.tokenBinding is not an object")
            }
            if let status = clientData.tokenBindingStatus, !["present", "supported", "not-supported"].contains(status) {
                throw WebAuthnError(.invalidTokenBinding, "clientDataJSON.tokenBinding.status \"\(status)\" is not present, supported or not-supported")
            }
        }
    }

    /// §7.1 steps 13-16 / §7.2 steps 15-18: RP ID hash, user presence (unless `userPresenceRequired`
    /// is false: a conditional create), user verification, backup flags. Returns the RP ID the hash matched.
    @discardableResult
    func checkAuthenticatorData(
        _ authenticatorData: AuthenticatorData, userVerification: UserVerificationRequirement, userPresenceRequired: Bool = true
    ) throws -> String {
        guard let index = acceptedRPIDHashes.firstIndex(where: { constantTimeEquals($0, authenticatorData.rpIDHash) }) else {
            throw WebAuthnError(.rpIDMismatch, "authenticator data rpIdHash is not the SHA-256 of \(acceptedRPIDs.map { "\"\($0)\"" }.joined(separator: " or "))")
        }
        let rpID = acceptedRPIDs[index]
        let flags = authenticatorData.flags
        if !flags.contains(.userPresent) {
            let mayOmit = !userPresenceRequired || (userPresence == .optionalUnlessVerificationRequired && userVerification != .required)
            guard mayOmit else {
                throw WebAuthnError(.userNotPresent, "authenticator data UP flag is not set: the user was not present")
            }
        }
        if userVerification == .required, !flags.contains(.userVerified) {
            throw WebAuthnError(.userNotVerified, "user verification is required but the authenticator data UV flag is not set")
        }
        if flags.contains(.backedUp), !flags.contains(.backupEligible) {
            throw WebAuthnError(.invalidBackupFlags, "authenticator data has BS set while BE is clear")
        }
        return rpID
    }
}
