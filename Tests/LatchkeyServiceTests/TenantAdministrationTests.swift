import Foundation
import LatchkeyAuthenticator
import LatchkeyConfiguration
import LatchkeyJSON
@testable import LatchkeyService
import LatchkeyStore
import LatchkeyTokens
import Testing
import WebAuthn

/// What an operator does with tenants, on the service: each document checked over the server's configuration, made,
/// read, changed and removed, each change an event of the default tenant; and a second tenant's users, tickets,
/// passkeys, sessions, tokens and admin keys refused by the first tenant's service.
@Suite("Tenant administration")
struct TenantAdministrationTests {
    static func document(_ id: String, _ more: [String: JSONValue] = [:]) -> [String: JSONValue] {
        ["id": .string(id), "rpID": .string("\(id).example"), "origins": .array([.string("https://\(id).example")]),
         "hosts": .array([.string("\(id).example")])].merging(more) { $1 }
    }

    @Test func aTenantIsMadeReadChangedAndRemoved() async throws {
        let harness = try ServiceHarness()
        let tenants = harness.service.tenantAdministration
        let made = try await tenants.create(Self.document("shop", ["rpName": .string("The Shop")]), caller: harness.caller())
        #expect(made.record.id == TenantID("shop") && made.settings?.configuration.rpName == "The Shop" && made.problems.isEmpty)
        #expect(try await tenants.tenants().map(\.record.id) == [TenantID("shop")])
        let changed = try await tenants.update("shop", changes: ["rpName": .string("Shop & Co")], caller: harness.caller())
        #expect(changed.settings?.configuration.rpName == "Shop & Co" && changed.record.hosts == ["shop.example"])
        #expect(try await tenants.tenant("shop").settings?.configuration.rpName == "Shop & Co")
        try await tenants.delete("shop", caller: harness.caller())
        #expect(try await tenants.tenants().isEmpty)
        let events = try await harness.service.eventLog.events(SecurityEventQuery(types: [.tenantCreated, .tenantUpdated, .tenantDeleted]))
        #expect(events.map(\.type) == [.tenantDeleted, .tenantUpdated, .tenantCreated])
    }

    @Test func aDocumentTheServerWouldNotAcceptIsRefusedAndNothingIsStored() async throws {
        let harness = try ServiceHarness()
        let tenants = harness.service.tenantAdministration
        _ = try await tenants.create(Self.document("bank"), caller: harness.caller())
        let refusals: [([String: JSONValue], ServiceError.Code)] = [
            (["rpID": .string("x.example")], .invalidInput),  // no id
            (Self.document("Bad ID!"), .invalidInput),
            (Self.document("bank"), .conflict),  // taken
            (Self.document("port", ["port": .number(9)]), .invalidInput),  // a server key
            (Self.document("ip", ["hosts": .array([.string("127.0.0.1")])]), .invalidInput),
            (Self.document("thief", ["hosts": .array([.string("bank.example")])]), .conflict),  // another tenant's host
        ]
        for (document, code) in refusals {
            let refusal = await #expect(throws: ServiceError.self, "\(document)") { try await tenants.create(document, caller: harness.caller()) }
            #expect(refusal?.code == code, "\(refusal?.message ?? "")")
        }
        #expect(try await tenants.tenants().map(\.record.id) == [TenantID("bank")])
        for call in [
            { _ = try await tenants.tenant("nobody") }, { _ = try await tenants.update("nobody", changes: [:], caller: harness.caller()) },
            { try await tenants.delete("nobody", caller: harness.caller()) },
        ] as [() async throws -> Void] {
            let refusal = await #expect(throws: ServiceError.self) { try await call() }
            #expect(refusal?.code == .notFound)
        }
    }

    @Test func aSecondTenantsUserTicketPasskeySessionTokenAndAdminKeyAreRefusedByTheFirst() async throws {
        let harness = try ServiceHarness()
        _ = try await harness.service.tenantAdministration.create(Self.document("other"), caller: harness.caller())
        let parties = try RelyingParties(
            configuration: harness.configuration, store: harness.store, attestationTrust: AttestationTrust(policy: harness.configuration.attestation),
            directory: TenantDirectory(server: harness.configuration, stored: try await harness.store.tenantDirectory()))
        let other = try parties.service(for: TenantID("other")!, logger: ServiceHarness.logger)
        // A user of the other tenant, with a ticket.
        let stranger = try await other.users.create(CreateUserRequest(username: "ada"), caller: harness.caller())
        let ticket = try await other.users.issueTicket(for: stranger, expiresIn: nil, caller: harness.caller())

        // The default tenant knows neither.
        let defaultService = harness.service
        await #expect(throws: ServiceError.self) { try await defaultService.users.user(named: "ada") }
        let refusal = await #expect(throws: ServiceError.self) {
            try await defaultService.registration.options(
                RegistrationOptionsRequest(enrollmentTicket: ticket.ticket), appAttestation: AppAttestProof(header: nil, body: [], binding: .none),
                caller: harness.caller(), presented: .none)
        }
        #expect(refusal?.code == .forbidden, "a ticket is its tenant's: \(refusal?.message ?? "")")
        // A passkey of the default tenant, answering the default tenant's challenge, signs in to it only.
        let registered = try await harness.register("bo")
        let answer = try harness.answer(try await harness.signInOptions().options)
        await #expect(throws: ServiceError.self) { try await other.signIn.finish(answer, caller: harness.caller(), presented: .none) }
        #expect(try await other.store.credential(id: registered.credentialID) == nil, "the other tenant's store has no such passkey")
        #expect(try await defaultService.signIn.finish(answer, caller: harness.caller(), presented: .none).user.username == "bo")

        // The other tenant's own passkey, session, token and admin key: its own, refused by the default tenant.
        let device = SoftwareAuthenticator(
            origin: try WebOrigin("https://other.example"),
            keyFilePath: FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-other-\(UUID().uuidString).json").path)
        let issued = try await other.registration.options(
            RegistrationOptionsRequest(enrollmentTicket: ticket.ticket), appAttestation: AppAttestProof(header: nil, body: [], binding: .none),
            caller: harness.caller(), presented: .none)
        let enrolled = try await other.registration.finish(
            try ServiceHarness.decode(RegistrationCredential.self, try device.register(options: try ServiceHarness.json(issued.options))),
            caller: harness.caller(), presented: CeremonyBinding(carrier: "the binding", values: issued.bindings))
        let otherSession = try #require(enrolled.session?.token)
        #expect(try await other.sessions.current(presented: [otherSession])?.user.username == "ada")
        #expect(try await defaultService.sessions.current(presented: [otherSession]) == nil, "a session is its tenant's")
        #expect(try await defaultService.store.credential(id: enrolled.credentialID) == nil, "a passkey is its tenant's")
        let defaultKeys = try await defaultService.tokens.keySet().keys
        let token = try #require(enrolled.idToken)
        #expect(throws: TokenError.self, "a token is signed with its tenant's keys") { try JSONWebToken.verify(token, keys: defaultKeys) }
        _ = try JSONWebToken.verify(token, keys: try await other.tokens.keySet().keys)
        let otherKey = try await AdminKeys.create(named: "other-backend", in: other.store)
        #expect(try await other.store.useAdminKey(hash: AdminKeys.hash(otherKey), now: Date()) != nil)
        #expect(try await defaultService.store.useAdminKey(hash: AdminKeys.hash(otherKey), now: Date()) == nil, "an admin key is its tenant's")
    }
}
