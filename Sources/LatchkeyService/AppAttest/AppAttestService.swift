import LatchkeyStore
import Logging
import WebAuthn

/// App Attest's own use cases (`DCAppAttestService`): challenges, key attestation and assertions, served when
/// `appAttest` is not `off`. See ``AppAttestKeys``.
package struct AppAttestService: Sendable {
    let service: RelyingPartyService

    /// A challenge for an attestation or an assertion.
    package func challenge(caller: Caller, presented binding: CeremonyBinding) async throws -> Challenges.Issued {
        try await service.challenges.issue(
            .appAttest, for: Challenges.Purpose(userVerification: .discouraged), client: caller.client, presented: binding)
    }

    /// Verifies and stores the attestation of a new key.
    package func attest(_ request: AppAttestKeyRequest, caller: Caller, presented binding: CeremonyBinding) async throws -> AppAttestKeyRecord {
        let key = try await service.appAttest.attest(
            keyID: request.keyId.bytes, attestationObject: request.attestationObject.bytes, challenge: request.challenge.bytes,
            presented: binding)
        caller.logger.info("App Attest key attested", metadata: [
            "appAttestKey": "\(RelyingPartyService.logID(key.keyID))", "app": "\(key.appID)", "environment": "\(key.environment)",
        ])
        return key
    }

    /// Verifies an assertion over client data that carries an App Attest challenge; returns the key and the
    /// assertion's own counter.
    package func assert(
        _ request: AppAttestAssertionRequest, presented binding: CeremonyBinding
    ) async throws -> (key: AppAttestKeyRecord, counter: UInt32) {
        try await service.appAttest.verify(
            keyID: request.keyId.bytes, assertion: request.assertion.bytes, clientData: request.clientData.bytes, presented: binding)
    }
}
