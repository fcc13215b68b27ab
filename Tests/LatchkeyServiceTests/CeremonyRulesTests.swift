import Foundation
import LatchkeyConfiguration
@testable import LatchkeyService
import LatchkeyStore
import LatchkeyTokens
import Testing
import WebAuthn

/// What the configuration's policy makes of a ceremony's options, on the service: who may register, what the
/// options ask of the authenticator, what an unknown username is told, what the sign-in token says.
@Suite("Ceremony rules")
struct CeremonyRulesTests {
    static let noProof = AppAttestProof(header: nil, body: [], binding: .none)

    @Test func withTicketsOnlyANewUsernameNeedsATicket() async throws {
        let harness = try ServiceHarness { $0.registration = .tickets }
        let refusal = await #expect(throws: ServiceError.self) {
            try await harness.service.registration.options(
                RegistrationOptionsRequest(username: "newcomer"), appAttestation: Self.noProof, caller: harness.caller(), presented: .none)
        }
        #expect(refusal?.code == .forbidden)
        #expect(try await harness.store.user(named: "newcomer") == nil, "nothing is kept")
    }

    @Test func anAutomaticUpgradeNeedsASessionOrATicket() async throws {
        let harness = try ServiceHarness()
        let refusal = await #expect(throws: ServiceError.self) {
            try await harness.service.registration.options(
                RegistrationOptionsRequest(username: "anyone", mediation: .conditional), appAttestation: Self.noProof, caller: harness.caller(),
                presented: .none)
        }
        #expect(refusal?.code == .forbidden)
    }

    @Test func anotherPasskeyOfASignedInUserExcludesTheirOwn() async throws {
        let harness = try ServiceHarness()
        let registered = try await harness.register("cleo")
        let issued = try await harness.service.registration.options(
            RegistrationOptionsRequest(username: "cleo"), appAttestation: Self.noProof, caller: try await harness.caller(signedInBy: registered),
            presented: .none)
        #expect(issued.options.excludeCredentials.map(\.id.bytes) == [registered.credentialID])
        #expect(issued.options.user.name == "cleo")
    }

    @Test func requiredUserVerificationIsAskedForInEveryOption() async throws {
        let harness = try ServiceHarness { $0.userVerification = .required }
        _ = try await harness.register("dov")
        let named = try await harness.signInOptions("dov")
        #expect(named.options.userVerification == .required)
        #expect(named.options.allowCredentials.count == 1, "the user's passkey is offered")
        #expect(try await harness.signInOptions().options.userVerification == .required)
    }

    @Test func anUnknownUsernameIsNotFoundOrHiddenBehindAStableDecoy() async throws {
        let open = try ServiceHarness()
        _ = try await open.register("eve")
        let notFound = await #expect(throws: ServiceError.self) { try await open.signInOptions("nobody") }
        #expect(notFound?.code == .notFound)

        let hiding = try ServiceHarness { $0.hideUnknownUsers = true }
        _ = try await hiding.register("eve")
        let first = try await hiding.signInOptions("nobody")
        let second = try await hiding.signInOptions("nobody")
        #expect(!first.options.allowCredentials.isEmpty, "options of the same shape")
        #expect(first.options.allowCredentials == second.options.allowCredentials, "the same decoy every time")
        #expect(first.options.challenge != second.options.challenge)
        let known = try await hiding.signInOptions("eve")
        #expect(known.options.allowCredentials.count == first.options.allowCredentials.count)
    }

    @Test func theSignInTokenNamesTheConfiguredIssuerAndAudience() async throws {
        let harness = try ServiceHarness {
            $0.tokenIssuer = "https://login.example.com"
            $0.tokenAudience = ["api", "app"]
        }
        let registered = try await harness.register("fin")
        let verified = try JSONWebToken.verify(try #require(registered.idToken), keys: try await harness.service.tokens.keySet().keys)
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(verified.claims)) as? [String: Any])
        #expect(claims["iss"] as? String == "https://login.example.com")
        #expect(claims["aud"] as? [String] == ["api", "app"])
    }

    @Test func anExpiredSessionIsNoSession() async throws {
        let harness = try ServiceHarness { $0.sessionTimeout = 60 }
        let registered = try await harness.register("gil")
        let token = try #require(registered.session?.token)
        #expect(try await harness.service.sessions.current(presented: [token]) != nil)
        #expect(try await harness.service.sessions.current(presented: [token], now: Date().addingTimeInterval(61)) == nil)
        #expect(try await harness.service.sessions.current(presented: ["not a token", ""]) == nil)
    }
}
