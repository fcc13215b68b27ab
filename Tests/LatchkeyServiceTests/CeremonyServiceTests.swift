import Foundation
import LatchkeyTokens
@testable import LatchkeyService
import LatchkeyStore
import Testing
import WebAuthn

/// The ceremonies' rules, called on the service itself: what is refused and with which code and words, what is
/// stored, and what a sign-in hands back.
@Suite("Ceremony service")
struct CeremonyServiceTests {
    @Test func aFirstRegistrationCreatesTheUserAndSignsThemIn() async throws {
        let harness = try ServiceHarness()
        let registered = try await harness.register("Ana")
        #expect(registered.username == "ana")
        let session = try #require(registered.session)
        let found = try await harness.service.sessions.current(presented: [session.token])
        #expect(found?.user.username == "ana")
        // The token names the new user: its subject is their handle, its username the folded name.
        let parts = try #require(registered.idToken).split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        let payload = try #require(parts.count == 3 ? Base64URL.decode(parts[1]) : nil)
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
        #expect(claims["sub"] as? String == Base64URL.encode(try #require(found?.user.handle)))
        #expect(claims["preferred_username"] as? String == "ana")
    }

    @Test func aUsernamelessSignInFindsThePasskeysOwner() async throws {
        let harness = try ServiceHarness()
        _ = try await harness.register("bea")
        let issued = try await harness.signInOptions()
        #expect(issued.options.allowCredentials.isEmpty)
        #expect(issued.options.rpId == "localhost")
        let signedIn = try await harness.service.signIn.finish(try harness.answer(issued.options), caller: harness.caller(), presented: .none)
        #expect(signedIn.user.username == "bea")
        #expect(signedIn.userVerified)
        #expect(try await harness.service.sessions.current(presented: [signedIn.session.token])?.user.handle == signedIn.user.handle)
    }

    @Test(arguments: [true, false])
    func signInTokensAreSignedOnlyWhenTheDeploymentWantsThem(wanted: Bool) async throws {
        let harness = try ServiceHarness { $0.signInTokens = wanted }
        let registered = try await harness.register("cai")
        let issued = try await harness.signInOptions()
        let signedIn = try await harness.service.signIn.finish(try harness.answer(issued.options), caller: harness.caller(), presented: .none)
        #expect((registered.idToken != nil) == wanted && (signedIn.idToken != nil) == wanted)
        // Either way the session stands for the person.
        #expect(try await harness.service.sessions.current(presented: [signedIn.session.token])?.user.username == "cai")
        if let token = signedIn.idToken {
            _ = try JSONWebToken.verify(token, keys: try await harness.service.tokens.keySet().keys)
        }
    }

    @Test func aChallengeIsAnsweredOnce() async throws {
        let harness = try ServiceHarness()
        _ = try await harness.register("cai")
        let issued = try await harness.signInOptions("cai")
        let answer = try harness.answer(issued.options)
        _ = try await harness.service.signIn.finish(answer, caller: harness.caller(), presented: .none)
        let again = await #expect(throws: ServiceError.self) {
            try await harness.service.signIn.finish(answer, caller: harness.caller(), presented: .none)
        }
        #expect(again?.code == .invalidInput)
        #expect(again?.message == "clientDataJSON.challenge does not match any pending ceremony: it is unknown, already used or expired")
    }

    @Test func aRegistrationChallengeIsAnsweredOnceEvenWhenTheAnswerIsRefused() async throws {
        let harness = try ServiceHarness()
        let register = { (username: String) async throws -> (RegistrationCredential, CeremonyBinding) in
            let issued = try await harness.service.registration.options(
                RegistrationOptionsRequest(username: username), appAttestation: AppAttestProof(header: nil, body: [], binding: .none),
                caller: harness.caller(), presented: .none)
            let answer = try harness.authenticator.register(options: try ServiceHarness.json(issued.options))
            return (try ServiceHarness.decode(RegistrationCredential.self, answer), CeremonyBinding(carrier: "the binding", values: issued.bindings))
        }
        let unanswered = "clientDataJSON.challenge does not match any pending ceremony: it is unknown, already used or expired"

        // Stored: the transaction that keeps the passkey spent the challenge.
        let (answer, binding) = try await register("gus")
        _ = try await harness.service.registration.finish(answer, caller: harness.caller(), presented: binding)
        let replayed = await #expect(throws: ServiceError.self) {
            try await harness.service.registration.finish(answer, caller: harness.caller(), presented: binding)
        }
        #expect(replayed?.message == unanswered)

        // Refused (another ceremony's binding): the challenge is spent all the same, and nothing was stored.
        let (refusedAnswer, refusedBinding) = try await register("hal")
        let other = CeremonyBinding(carrier: "the binding", values: [Array(repeating: 7, count: 32)])
        let refusal = await #expect(throws: ServiceError.self) {
            try await harness.service.registration.finish(refusedAnswer, caller: harness.caller(), presented: other)
        }
        #expect(refusal?.message == "the binding does not belong to this challenge")
        let retried = await #expect(throws: ServiceError.self) {
            try await harness.service.registration.finish(refusedAnswer, caller: harness.caller(), presented: refusedBinding)
        }
        #expect(retried?.message == unanswered)
        #expect(try await harness.store.user(named: "hal") == nil)
    }

    @Test func aBindingOfAnotherChallengeIsRefused() async throws {
        let harness = try ServiceHarness()
        _ = try await harness.register("dov")
        let issued = try await harness.signInOptions("dov")
        let other = CeremonyBinding(carrier: "the latchkey_signin cookie", values: [Array(repeating: 7, count: 32)])
        let refusal = await #expect(throws: ServiceError.self) {
            try await harness.service.signIn.finish(try harness.answer(issued.options), caller: harness.caller(), presented: other)
        }
        #expect(refusal?.message == "the latchkey_signin cookie does not belong to this challenge")
        // The binding the options handed out is accepted, with any earlier ones the carrier still holds.
        let next = try await harness.signInOptions("dov")
        let kept = CeremonyBinding(carrier: "the latchkey_signin cookie", values: next.bindings + other.values)
        _ = try await harness.service.signIn.finish(try harness.answer(next.options), caller: harness.caller(), presented: kept)
    }

    @Test func aTakenUsernameNeedsItsOwnersSession() async throws {
        let harness = try ServiceHarness()
        let first = try await harness.register("eli")
        let refusal = await #expect(throws: ServiceError.self) { try await harness.register("ELI") }
        #expect(refusal?.code == .forbidden)
        #expect(refusal?.message == "username \"eli\" is already registered; sign in as eli to add a passkey")
        // Signed in (just now), the owner adds a second passkey; it starts no new session.
        let session = try #require(first.session)
        let identity = try #require(try await harness.service.sessions.current(presented: [session.token]))
        let second = try await harness.register(
            "eli", caller: harness.caller(identity: identity, tokens: [session.token]), on: try harness.anotherAuthenticator())
        #expect(second.session == nil)
        #expect(try await harness.store.credentials(ofUser: identity.user.handle).count == 2)
    }

    @Test func anUnknownPasskeyIsRefusedNamingIt() async throws {
        let harness = try ServiceHarness()
        _ = try await harness.register("fay")
        let issued = try await harness.signInOptions()
        var answer = try harness.answer(issued.options)
        answer.id = Base64URLBytes(Array(repeating: 9, count: 16))
        answer.rawId = answer.id
        let refusal = await #expect(throws: ServiceError.self) {
            try await harness.service.signIn.finish(answer, caller: harness.caller(), presented: .none)
        }
        #expect(refusal?.reason == .unknownCredential)
        #expect(refusal?.credentialID == Array(repeating: 9, count: 16))
        // Its challenge is spent all the same.
        let spent = await #expect(throws: ServiceError.self) {
            try await harness.service.signIn.finish(try harness.answer(issued.options), caller: harness.caller(), presented: .none)
        }
        #expect(spent?.message.hasPrefix("clientDataJSON.challenge does not match any pending ceremony") == true)
    }

    @Test func aClientWithTooManyPendingChallengesIsAskedToWait() async throws {
        let harness = try ServiceHarness { $0.pendingChallengesPerClient = 2 }
        _ = try await harness.signInOptions()
        _ = try await harness.signInOptions()
        let refusal = await #expect(throws: ServiceError.self) { try await harness.signInOptions() }
        #expect(refusal?.code == .tooManyPending)
        #expect(refusal?.retryAfterSeconds == 60)
        // Another client is counted on its own.
        _ = try await harness.signInOptions(caller: harness.caller(client: "198.51.100.1"))
    }

    @Test func aTicketRegistersForItsUserWithoutASession() async throws {
        let harness = try ServiceHarness { $0.registration = .tickets }
        let admin = harness.caller()
        let user = try await harness.service.users.create(CreateUserRequest(username: "Gus"), caller: admin)
        let ticket = try await harness.service.users.issueTicket(for: user, expiresIn: nil, caller: admin)
        #expect(ticket.enrollmentURL == "http://localhost:8080/#ticket=\(ticket.ticket)")
        // Without it, registration is closed whatever the name.
        let closed = await #expect(throws: ServiceError.self) { try await harness.register("gus") }
        #expect(closed?.code == .forbidden)
        let issued = try await harness.service.registration.options(
            RegistrationOptionsRequest(enrollmentTicket: ticket.ticket), appAttestation: AppAttestProof(header: nil, body: [], binding: .none),
            caller: harness.caller(), presented: .none)
        #expect(issued.options.user.name == "gus")
        let answer = try harness.authenticator.register(options: try ServiceHarness.json(issued.options))
        let registered = try await harness.service.registration.finish(
            try ServiceHarness.decode(RegistrationCredential.self, answer), caller: harness.caller(), presented: .none)
        #expect(registered.session != nil)
        // Spent: a second use names why.
        let spent = await #expect(throws: ServiceError.self) {
            try await harness.service.tickets.usable(ticket.ticket)
        }
        #expect(spent?.message.hasPrefix("this enrollment ticket was already used") == true)
    }

    @Test func theStoresRecordingOfASignInIsReadBackAsItsRefusal() throws {
        #expect(throws: Never.self) { try SignCounter.check(.recorded, credentialID: [1], rpID: "example.com") }
        let moved = #expect(throws: ServiceError.self) { try SignCounter.check(.counterMoved, credentialID: [1], rpID: "example.com") }
        #expect(moved?.message == "another sign-in with this passkey happened at the same moment; try again")
        let removed = #expect(throws: ServiceError.self) { try SignCounter.check(.credentialRemoved, credentialID: [1], rpID: "example.com") }
        #expect(removed?.reason == .unknownCredential)
        #expect(removed?.message == "this passkey is not registered with example.com")
    }

    @Test func theCountersRuleIsTheCoresOne() {
        #expect(!SignCountRule.regressed(received: 0, stored: 0))
        #expect(SignCountRule.regressed(received: 5, stored: 5))
        #expect(SignCountRule.regressed(received: 0, stored: 3))
        #expect(!SignCountRule.regressed(received: 4, stored: 3))
    }
}
