import LatchkeyStore
import Logging
import WebAuthn

extension RelyingPartyService {
    /// Records a refused sign-in of a known user whose passkey (`credential`) or device key (`deviceKeyID`)
    /// signed the answer, naming the check that refused it. A failure to record is logged, not put in the
    /// refusal's place.
    package func recordRefusedSignIn(
        of owner: UserRecord, credential: CredentialRecord? = nil, deviceKeyID: [UInt8]? = nil, because error: any Error,
        origin: EventOrigin, logger: Logger
    ) async {
        // The client's own refusal message; anything else is not for a user's history.
        let reason = (error as? ServiceError)?.message ?? (error as? WebAuthnError)?.message ?? "internal error"
        let detail = String((deviceKeyID == nil ? reason : "device key: " + reason).prefix(300))
        let code = (error as? ServiceError).map { $0.reason?.rawValue ?? $0.code.rawValue }
            ?? (error as? WebAuthnError).map { "\($0.code)" } ?? "internalError"
        do {
            // Not for an account deleted while it signed in: no event follows its account.deleted.
            try await store.recordEvent(
                events.event(.signInRefused, origin, user: owner, credential: credential, credentialID: deviceKeyID, detail: detail,
                    reason: code),
                whileItsUserExists: true)
        } catch {
            logger.error("could not record a refused sign-in", metadata: ["error": "\(error)"])
        }
    }
}
