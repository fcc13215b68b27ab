import Testing
import WebAuthn

/// The BE (backup eligible) flag on the real vectors: synced credentials register only when the
/// relying party allows them, and a sign-in whose BE differs from the registered one is refused
/// unless the policy says to report the change instead.
@Suite("Backup eligibility")
struct BackupEligibilityTests {
    static let registrations = ConformanceVectorTests.inScope.filter {
        $0.isRegistration && $0.mustPass && !ConformanceVectorTests.isCrossOrigin($0)
            && !ConformanceVectorTests.postQuantum.contains($0.name) && ConformanceVectorTests.refusedByDecision[$0.name] == nil
    }
    static let signIns = MutationTests.passingSignIns.filter { !ConformanceVectorTests.isCrossOrigin($0) }

    @Test func theVectorsHoldBothKinds() throws {
        let eligible = try Self.registrations.map { try isBackupEligible($0.attestationObject.map { try AttestationObject($0) }?.authenticatorData) }
        #expect(eligible.contains(true) && eligible.contains(false), "synced and device-bound registrations are both needed here")
    }

    @Test("only device-bound credentials register when synced ones are refused", arguments: registrations)
    func syncedCredentialsMayBeRefused(_ vector: ConformanceVector) throws {
        let response = RegistrationResponse(
            credentialID: vector.credentialID, clientDataJSON: vector.clientDataJSON, attestationObject: vector.attestationObject ?? [])
        let expectation = RegistrationExpectation(challenge: vector.challenge, userVerification: vector.userVerification)
        var relyingParty = vector.relyingParty()
        let allowed = try RegistrationVerifier(relyingParty: relyingParty, trust: vector.trust()).verify(response, expecting: expectation)
        relyingParty.syncedCredentials = .refused
        let verifier = RegistrationVerifier(relyingParty: relyingParty, trust: try vector.trust())
        if allowed.backupEligible {
            let error = #expect(throws: WebAuthnError.self) { try verifier.verify(response, expecting: expectation) }
            #expect(error?.code == .invalidBackupFlags && error?.message.contains("device-bound") == true)
        } else {
            #expect(try verifier.verify(response, expecting: expectation).credentialID == allowed.credentialID)
        }
    }

    @Test("a sign-in whose BE differs from the registered one is refused, or reported", arguments: signIns)
    func aChangedEligibilityIsRefusedByDefault(_ vector: ConformanceVector) throws {
        let response = vector.authenticationResponse
        let eligible = try isBackupEligible(response.authenticatorData.isEmpty ? nil : AuthenticatorData(response.authenticatorData))
        var expectation = vector.authenticationExpectation
        expectation.storedBackupEligible = eligible
        var relyingParty = vector.relyingParty()
        #expect(relyingParty.backupEligibilityChanges == .refused)
        #expect(try !SignInVerifier(relyingParty: relyingParty).verify(response, expecting: expectation).backupEligibilityChanged)

        expectation.storedBackupEligible = !eligible
        let error = #expect(throws: WebAuthnError.self) {
            try SignInVerifier(relyingParty: relyingParty).verify(response, expecting: expectation)
        }
        #expect(error?.code == .invalidBackupFlags)
        relyingParty.backupEligibilityChanges = .accepted
        #expect(try SignInVerifier(relyingParty: relyingParty).verify(response, expecting: expectation).backupEligibilityChanged)
    }

    private func isBackupEligible(_ data: AuthenticatorData?) throws -> Bool {
        try #require(data).flags.contains(.backupEligible)
    }
}
