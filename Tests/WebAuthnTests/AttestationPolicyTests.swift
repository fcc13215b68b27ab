import Testing
@testable import WebAuthn

/// The policy modes and AAGUID lists, judged on real registrations from the vector folder.
@Suite("Attestation policy")
struct AttestationPolicyTests {
    static func vector(_ name: String) throws -> ConformanceVector {
        try #require(ConformanceVector.named(name), "vector \(name) not found")
    }

    func register(_ name: String, policy: AttestationPolicy, anchors: [X509Certificate] = []) throws -> VerifiedRegistration {
        let vector = try Self.vector(name)
        let trust = AttestationTrust(policy: policy, anchors: TrustAnchors(anchors), verificationTime: vector.verifyAt)
        return try RegistrationVerifier(relyingParty: vector.relyingParty(), trust: trust).verify(
            RegistrationResponse(credentialID: vector.credentialID, clientDataJSON: vector.clientDataJSON, attestationObject: vector.attestationObject ?? []),
            expecting: RegistrationExpectation(challenge: vector.challenge, userVerification: .preferred))
    }

    func expectRefused(_ name: String, policy: AttestationPolicy, anchors: [X509Certificate] = [], mentioning text: String) {
        let error = #expect(throws: WebAuthnError.self) { try register(name, policy: policy, anchors: anchors) }
        #expect(error?.code == .untrustedAttestation)
        #expect(error?.message.contains(text) == true, "message: \(error?.message ?? "")")
    }

    @Test func noneIsAcceptedOnlyByTheAcceptAnyPolicy() throws {
        #expect(try register("w3c-none-es256-reg", policy: AttestationPolicy(mode: .none)).attestation.type == .none)
        expectRefused("w3c-none-es256-reg", policy: AttestationPolicy(mode: .selfOrTrusted), mentioning: "none")
        expectRefused("w3c-none-es256-reg", policy: AttestationPolicy(mode: .trustedOnly), mentioning: "none")
    }

    @Test func selfAttestationIsRefusedByTrustedOnly() throws {
        let accepted = try register("swa-packed-self-es256-reg", policy: AttestationPolicy(mode: .selfOrTrusted))
        #expect(accepted.attestation.type == .self)
        #expect(accepted.attestationTrusted == false)
        expectRefused("swa-packed-self-es256-reg", policy: AttestationPolicy(mode: .trustedOnly), mentioning: "self attestation")
    }

    @Test func chainsMustReachAnAnchorUnlessThePolicyAcceptsAny() throws {
        let vector = try Self.vector("yubico-yubikey-5-reg")
        let anchors = try vector.anchors()
        let trusted = try register(vector.name, policy: AttestationPolicy(mode: .trustedOnly), anchors: anchors)
        #expect(trusted.attestationTrusted)
        #expect(trusted.attestation.trustPath.count >= 1)
        // No anchors at all: strict modes refuse instead of silently skipping the chain check.
        expectRefused(vector.name, policy: AttestationPolicy(mode: .trustedOnly), mentioning: "no trust anchors")
        // A root that did not issue the chain.
        let wrongRoot = try Self.vector("w3c-packed-es256-reg").anchors()
        expectRefused(vector.name, policy: AttestationPolicy(mode: .selfOrTrusted), anchors: wrongRoot, mentioning: "does not verify")
        // Accept-any keeps the registration but records that it is not trusted.
        let untrusted = try register(vector.name, policy: AttestationPolicy(mode: .none), anchors: wrongRoot)
        #expect(untrusted.attestationTrusted == false)
    }

    @Test func aaguidListsAreEnforced() throws {
        let vector = try Self.vector("yubico-yubikey-5-reg")
        let aaguid = try register(vector.name, policy: AttestationPolicy()).aaguid
        expectRefused(vector.name, policy: AttestationPolicy(deniedAAGUIDs: [aaguid]), mentioning: "deny-list")
        expectRefused(vector.name, policy: AttestationPolicy(allowedAAGUIDs: [[UInt8](repeating: 7, count: 16)]), mentioning: "allow-list")
        // An allowed model is admitted only when a certificate vouches for it: the YubiKey leaf
        // carries id-fido-gen-ce-aaguid, so with its root configured it is attested.
        let anchors = try vector.anchors()
        #expect(throws: Never.self) { try register(vector.name, policy: AttestationPolicy(allowedAAGUIDs: [aaguid]), anchors: anchors) }
        expectRefused(vector.name, policy: AttestationPolicy(allowedAAGUIDs: [aaguid]), mentioning: "no certificate vouches")
    }

    @Test func sha1IsOffByDefault() throws {
        let vector = try Self.vector("swa-tpm-rs1-sha1-reg")
        let error = #expect(throws: WebAuthnError.self) {
            _ = try RegistrationVerifier(relyingParty: vector.relyingParty()).verify(
                RegistrationResponse(credentialID: vector.credentialID, clientDataJSON: vector.clientDataJSON, attestationObject: vector.attestationObject ?? []),
                expecting: RegistrationExpectation(challenge: vector.challenge, userVerification: .preferred))
        }
        #expect(error?.code == .algorithmNotAllowed)
    }
}
