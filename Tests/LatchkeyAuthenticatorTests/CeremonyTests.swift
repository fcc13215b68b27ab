import Foundation
import LatchkeyAuthenticator
import Testing
import WebAuthn

/// What the authenticator makes must pass the core's own §7.1 and §7.2 verifiers, for every
/// algorithm and both attestation kinds; if it did not, the server would refuse it too.
@Suite("Software authenticator ceremonies")
struct CeremonyTests {
    @Test("registration and two sign-ins verify", arguments: CredentialAlgorithm.allCases, SoftwareAuthenticator.Attestation.allCases)
    func registersAndSignsIn(algorithm: CredentialAlgorithm, attestation: SoftwareAuthenticator.Attestation) throws {
        let folder = try TemporaryFolder()
        let authenticator = SoftwareAuthenticator(origin: try WebOrigin(Options.origin), keyFilePath: folder.keys)
        let challenge = try randomBytes(32)
        let userID = try randomBytes(16)

        let output = try OutputJSON(authenticator.register(
            options: Options.creation(challenge: challenge, userID: userID), algorithm: algorithm, attestation: attestation))
        let verified = try RegistrationVerifier(relyingParty: Options.relyingParty).verify(
            output.registrationResponse(), expecting: RegistrationExpectation(challenge: challenge, userVerification: .required))
        #expect(verified.algorithm == algorithm.coseAlgorithm)
        #expect(verified.attestationFormat.rawValue == attestation.rawValue)
        #expect(verified.attestation.type == (attestation == .packed ? .self : .none))
        #expect(verified.credentialID == (try output.bytes("id", in: output.object)))
        #expect(verified.userVerified && verified.flags.contains(.userPresent))
        #expect(!verified.backupEligible && !verified.backedUp, "a keys file is not a synced passkey")
        #expect(verified.residentKey == true && verified.signCount == 0 && verified.transports == [.internal])
        #expect(output.response["publicKeyAlgorithm"] as? Int == Int(algorithm.coseAlgorithm.rawValue))
        #expect(output.object["authenticatorAttachment"] as? String == "platform")
        #expect(output.object["type"] as? String == "public-key" && output.object["rawId"] as? String == output.object["id"] as? String)

        let stored = try KeyFile.load(from: folder.keys).credentials
        #expect(stored.count == 1)
        #expect(stored.first?.id == verified.credentialID && stored.first?.userHandle == userID)
        #expect(stored.first?.username == "alice" && stored.first?.rpID == "localhost" && stored.first?.algorithm == algorithm)

        // With allowCredentials (username given), then usernameless: the counter grows each time.
        for (round, allow) in [[verified.credentialID], []].enumerated() {
            let challenge = try randomBytes(32)
            let assertion = try OutputJSON(authenticator.signIn(options: Options.request(challenge: challenge, allow: allow)))
            let expectation = SignInExpectation(
                challenge: challenge, userVerification: .required, publicKey: verified.publicKey,
                storedSignCount: UInt32(round), userHandle: userID, userHandleRequired: allow.isEmpty, storedBackupEligible: false)
            let signedIn = try SignInVerifier(relyingParty: Options.relyingParty).verify(assertion.authenticationResponse(), expecting: expectation)
            #expect(signedIn.signCount == UInt32(round + 1))
            #expect(signedIn.credentialID == verified.credentialID && signedIn.userVerified)
            #expect(try KeyFile.load(from: folder.keys).credentials.first?.signCount == UInt32(round + 1))
        }
    }

    /// The checks above can fail: an assertion for another challenge is refused by the verifier.
    @Test func anAssertionDoesNotVerifyForAnotherChallenge() throws {
        let folder = try TemporaryFolder()
        let authenticator = SoftwareAuthenticator(origin: try WebOrigin(Options.origin), keyFilePath: folder.keys)
        let challenge = try randomBytes(32)
        let userID = try randomBytes(16)
        let verified = try RegistrationVerifier(relyingParty: Options.relyingParty).verify(
            OutputJSON(authenticator.register(options: Options.creation(challenge: challenge, userID: userID))).registrationResponse(),
            expecting: RegistrationExpectation(challenge: challenge, userVerification: .required))
        let assertion = try OutputJSON(authenticator.signIn(options: Options.request(challenge: try randomBytes(32))))
        let expectation = SignInExpectation(
            challenge: try randomBytes(32), userVerification: .required, publicKey: verified.publicKey,
            storedSignCount: 0, userHandle: userID, userHandleRequired: true)
        #expect(throws: WebAuthnError.self) {
            try SignInVerifier(relyingParty: Options.relyingParty).verify(assertion.authenticationResponse(), expecting: expectation)
        }
    }

    /// Without `--alg`, the first offered algorithm this authenticator makes, in the RP's order;
    /// none listed means ES256 (§5.1.3 step 10).
    @Test func theAlgorithmDefaultsToTheFirstOfferedThatItMakes() throws {
        for (offered, expected) in [([-36, -8, -7], COSEAlgorithm.edDSA), ([-257, -7], .rs256), ([], .es256)] as [([Int64], COSEAlgorithm)] {
            let folder = try TemporaryFolder()
            let authenticator = SoftwareAuthenticator(origin: try WebOrigin(Options.origin), keyFilePath: folder.keys)
            let challenge = try randomBytes(32)
            let output = try OutputJSON(authenticator.register(options: Options.creation(challenge: challenge, userID: try randomBytes(16), algorithms: offered)))
            let relyingParty = RelyingParty(id: "localhost", name: "Latchkey", origins: [Options.origin])
            let verified = try RegistrationVerifier(relyingParty: relyingParty).verify(
                output.registrationResponse(), expecting: RegistrationExpectation(challenge: challenge, userVerification: .required))
            #expect(verified.algorithm == expected, "offered \(offered)")
        }
    }

    /// An origin on a subdomain of the RP ID registers and signs in under that RP ID.
    @Test func aSubdomainOriginUsesTheParentRPID() throws {
        let folder = try TemporaryFolder()
        let origin = "https://login.example.com"
        let authenticator = SoftwareAuthenticator(origin: try WebOrigin(origin), keyFilePath: folder.keys)
        let relyingParty = RelyingParty(id: "example.com", name: "Example", origins: [origin])
        let challenge = try randomBytes(32)
        let userID = try randomBytes(16)
        let verified = try RegistrationVerifier(relyingParty: relyingParty).verify(
            OutputJSON(authenticator.register(options: Options.creation(challenge: challenge, userID: userID, rpID: "example.com"))).registrationResponse(),
            expecting: RegistrationExpectation(challenge: challenge, userVerification: .required))
        #expect(verified.rpID == "example.com")
        let signInChallenge = try randomBytes(32)
        let assertion = try OutputJSON(authenticator.signIn(options: Options.request(challenge: signInChallenge, rpID: "example.com")))
        _ = try SignInVerifier(relyingParty: relyingParty).verify(assertion.authenticationResponse(), expecting: SignInExpectation(
            challenge: signInChallenge, userVerification: .required, publicKey: verified.publicKey, storedSignCount: 0,
            userHandle: userID, userHandleRequired: true))
    }
}
