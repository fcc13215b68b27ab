import WebAuthn

extension CeremonyPolicy {
    /// The `authenticatorSelection` creation options carry for a client that sent `requested`:
    /// as asked when client choices are taken as asked, else with the effective resident key
    /// (and the Level 1 `requireResidentKey` that matches it) and user verification.
    package func authenticatorSelection(requested: AuthenticatorSelectionCriteria?) -> AuthenticatorSelectionCriteria? {
        guard clientChoices == .raisedToMinimums else { return requested }
        // §5.4.4: without `residentKey`, `requireResidentKey: true` means required.
        let requestedResidentKey = requested?.residentKey ?? (requested?.requireResidentKey == true ? .required : nil)
        let residentKey = residentKey(requested: requestedResidentKey)
        return AuthenticatorSelectionCriteria(
            authenticatorAttachment: requested?.authenticatorAttachment, residentKey: residentKey,
            requireResidentKey: residentKey == .required,
            userVerification: userVerification(requested: requested?.userVerification))
    }
}
