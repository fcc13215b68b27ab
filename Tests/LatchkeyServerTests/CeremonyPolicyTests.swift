import Foundation
import HTTPTypes
@testable import LatchkeyServer
@testable import LatchkeyService
import Testing
import WebAuthn

/// The server, not the client, decides what a ceremony requires: minimums raised in options and
/// checked again at the result.
@Suite("Ceremony policy")
struct CeremonyPolicyTests {
    // MARK: The policy as values

    @Test(arguments: [
        (UserVerificationRequirement?.none, UserVerificationRequirement.preferred, UserVerificationRequirement.preferred),
        (.discouraged, .preferred, .preferred), (.required, .preferred, .required),
        (.discouraged, .required, .required), (.preferred, .discouraged, .preferred), (nil, .required, .required),
    ])
    func userVerificationIsRaisedNeverLowered(
        requested: UserVerificationRequirement?, minimum: UserVerificationRequirement, effective: UserVerificationRequirement
    ) {
        #expect(CeremonyPolicy(userVerification: minimum).userVerification(requested: requested) == effective)
    }

    @Test func residentKeyAndAttestationAreRaisedNeverLowered() {
        let standard = CeremonyPolicy()
        #expect(standard.residentKey(requested: nil) == .required)
        #expect(standard.residentKey(requested: .discouraged) == .required)
        let securityKeys = CeremonyPolicy(residentKey: .preferred)
        #expect(securityKeys.residentKey(requested: .discouraged) == .preferred)
        #expect(securityKeys.residentKey(requested: .required) == .required)
        #expect(standard.attestation(requested: AttestationConveyance.none, policyNeedsStatement: true) == .direct)
        #expect(standard.attestation(requested: .indirect, policyNeedsStatement: true) == .direct)
        #expect(standard.attestation(requested: .enterprise, policyNeedsStatement: true) == .enterprise)
        #expect(standard.attestation(requested: nil, policyNeedsStatement: false) == .none)
        #expect(standard.attestation(requested: .direct, policyNeedsStatement: false) == .direct)
    }

    @Test func conformanceTakesTheClientsChoicesAsAsked() {
        let conformance = ServerPolicy.conformance.ceremonies
        #expect(conformance.userVerification(requested: .discouraged) == .discouraged)
        #expect(conformance.residentKey(requested: nil) == nil)
        #expect(conformance.attestation(requested: AttestationConveyance.none, policyNeedsStatement: true) == .none)
        #expect(conformance.authenticatorSelection(requested: nil) == nil)
    }

    // MARK: Through the routes

    @Test func defaultOptionsAskForADiscoverablePasskey() async throws {
        try await RouteHarness().run { client in
            let creation = try await client.post("/attestation/options", ["username": "ivy"])
            let selection = creation.json["authenticatorSelection"] as? [String: Any]
            #expect(selection?["residentKey"] as? String == "required")
            #expect(selection?["requireResidentKey"] as? Bool == true)
            #expect(selection?["userVerification"] as? String == "preferred")
        }
    }

    @Test func requiredUserVerificationHoldsAtOptionsAndAtResult() async throws {
        let harness = try RouteHarness { $0.userVerification = .required }
        try await harness.run { client in
            let authenticator = TestAuthenticator()
            let creation = try await client.post("/attestation/options", [
                "username": "jo", "authenticatorSelection": ["userVerification": "discouraged"],
            ])
            #expect((creation.json["authenticatorSelection"] as? [String: Any])?["userVerification"] as? String == "required")
            // UP and AT, no UV: refused, nothing stored.
            let unverified = try await client.post("/attestation/result", try authenticator.register(creation.json, flags: 0x41))
            #expect(unverified.status == .badRequest, "\(unverified.text)")
            #expect(try await harness.store.user(named: "jo") == nil)
            #expect(try await client.register("jo", with: authenticator).isOK)

            let request = try await client.post("/assertion/options", ["userVerification": "discouraged"])
            #expect(request.json["userVerification"] as? String == "required")
            let refused = try await client.post("/assertion/result", try authenticator.assert(request.json, credential: 1, flags: 0x01))
            #expect(refused.status == .badRequest && refused.errorMessage.lowercased().contains("verif"), "\(refused.text)")
            #expect(try await client.signIn(nil, with: authenticator, credential: 1).isOK, "with UV it signs in")
        }
    }

    @Test func aNonDiscoverableCredentialIsRefusedWhenResidentKeyIsRequired() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let options = try await client.post("/attestation/options", ["username": "kim"])
            var credential = try TestAuthenticator().register(options.json)
            credential["clientExtensionResults"] = ["credProps": ["rk": false]]
            let reply = try await client.post("/attestation/result", credential)
            #expect(reply.status == .badRequest && reply.errorMessage.contains("discoverable"), "\(reply.text)")
            #expect(try await harness.store.user(named: "kim") == nil, "nothing is stored")
        }
        // With `residentKey: preferred` (security keys), the same credential registers.
        try await RouteHarness { $0.residentKey = .preferred }.run { client in
            let options = try await client.post("/attestation/options", ["username": "kim"])
            var credential = try TestAuthenticator().register(options.json)
            credential["clientExtensionResults"] = ["credProps": ["rk": false]]
            #expect(try await client.post("/attestation/result", credential).isOK)
        }
    }

    @Test func aClientCannotLowerTheAttestationAStrictPolicyNeeds() async throws {
        try await RouteHarness { $0.attestationPolicy = .selfOrTrusted }.run { client in
            let creation = try await client.post("/attestation/options", ["username": "lee", "attestation": "none"])
            #expect(creation.json["attestation"] as? String == "direct", "\(creation.text)")
        }
    }

    @Test func conformanceModeEchoesWhatTheToolsSent() async throws {
        try await RouteHarness(conformanceMode: true).run { client in
            let selection: [String: Any] = ["residentKey": "discouraged", "userVerification": "discouraged"]
            let creation = try await client.post("/attestation/options", ["username": "max", "authenticatorSelection": selection])
            #expect(creation.json["authenticatorSelection"] as? NSDictionary == selection as NSDictionary)
            let request = try await client.post("/assertion/options", ["userVerification": "discouraged"])
            #expect(request.json["userVerification"] as? String == "discouraged")
        }
    }
}
