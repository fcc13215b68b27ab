import LatchkeyStore
import Logging
import WebAuthn

/// §7.2 step 22 as the service carries it out: the core decides, by ``WebAuthn/SignCountRule``, whether an
/// answer's counter regressed from the stored one (and refuses it); a regression is marked on the passkey here;
/// and the store writes the new counter only while the stored one is still the one the verification read (a
/// compare-and-set), which this type reads back, with the other outcomes of recording a sign-in.
struct SignCounter {
    let service: RelyingPartyService

    /// Marks `record` as having regressed (a possible clone), with its event. The refusal is what matters: a
    /// failure to mark is logged, not put in its place.
    func markRegression(of record: CredentialRecord, owner: UserRecord, caller: Caller) async {
        do {
            try await service.store.recordSignCountRegression(
                credentialID: record.id,
                recording: [service.events.event(
                    .passkeyCounterRegressed, caller.origin, user: owner, credential: record, detail: "stored counter \(record.signCount)")])
        } catch {
            caller.logger.error("could not mark a counter regression", metadata: ["error": "\(error)"])
        }
        caller.logger.warning("signature counter regression: possible cloned authenticator", metadata: [
            "credential": "\(RelyingPartyService.logID(record.id))", "stored": "\(record.signCount)",
        ])
    }

    /// Refuses a sign-in the store did not record: its challenge answered already, the counter moved by another
    /// sign-in with this passkey between reading and writing it, or the passkey removed meanwhile.
    static func check(_ recorded: SignInRecording, credentialID: [UInt8], rpID: String) throws(ServiceError) {
        switch recorded {
        case .recorded:
            return
        case .challengeSpent:
            throw ServiceError.challengeAnsweredAlready
        case .counterMoved:
            throw ServiceError.invalid("another sign-in with this passkey happened at the same moment; try again")
        case .credentialRemoved:
            // Removed (or its account deleted) while this sign-in was being verified.
            throw ServiceError.unknownCredential(credentialID, rpID: rpID)
        }
    }
}
