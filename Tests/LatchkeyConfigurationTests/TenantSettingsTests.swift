import Foundation
import LatchkeyConfiguration
import LatchkeyJSON
import Testing
import WebAuthn

/// A tenant's document read over the server's configuration: identity keys its own, policy keys inherited
/// unless set, server keys refused, every value checked as `check-config` checks it.
@Suite("Tenant settings")
struct TenantSettingsTests {
    /// The server's configuration: the default tenant's, and the base of every other.
    var server: LatchkeyConfiguration {
        var server = LatchkeyConfiguration()
        server.rpID = try! RelyingPartyID(parsing: "example.com")
        server.origins = ["https://example.com"]
        server.tokenIssuer = "https://example.com"
        server.tokenAudience = ["example.com"]
        server.appleAppIDs = ["ABCDE12345.com.example.app"]
        server.webhookURLs = ["https://hooks.example.com/latchkey"]
        server.userVerification = .required
        server.rateLimit = 7
        return server
    }

    func document(_ json: String) throws -> [String: JSONValue] {
        guard case .object(let members) = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)) else {
            throw ConfigurationError("not an object")
        }
        return members
    }

    func problems(_ json: String) throws -> [String] {
        do {
            _ = try TenantSettings(document: try document(json), server: server)
            return []
        } catch let error as ConfigurationError {
            return error.problems
        }
    }

    @Test func identityIsTheTenantsOwnAndPolicyIsInherited() throws {
        let settings = try TenantSettings(
            document: try document(#"{"id": "shop", "hosts": ["login.shop.test"], "rpID": "shop.test", "registration": "tickets"}"#),
            server: server)
        let configuration = settings.configuration
        #expect(settings.id == "shop" && settings.hosts == ["login.shop.test"])
        #expect(configuration.rpID.value == "shop.test")
        // Derived from its own RP ID, never the server's.
        #expect(configuration.origins == ["https://shop.test"])
        #expect(configuration.tokenIssuer == "https://shop.test" && configuration.tokenAudience == ["shop.test"])
        #expect(configuration.appleAppIDs.isEmpty && configuration.webhookURLs.isEmpty, "another tenant's apps and receivers are not inherited")
        #expect(configuration.rpName == LatchkeyConfiguration().rpName)
        // Policy: its own where set, the server's elsewhere.
        #expect(configuration.registration == .tickets)
        #expect(configuration.userVerification == .required && configuration.rateLimit == 7)
        #expect(settings.members.keys.sorted() == ["registration", "rpID"])
        #expect(settings.document["id"] == .string("shop"))
    }

    @Test func everyProblemIsNamedWithItsMemberAndTenant() throws {
        #expect(try problems(#"{"id": "shop", "rpID": "shop.test", "origins": ["https://evil.test"]}"#) == [
            #"origins (tenant shop): the host of "https://evil.test" is not shop.test or a subdomain of it, so passkeys for RP ID shop.test cannot be used there"#,
        ])
        #expect(try problems(#"{"id": "shop", "rpID": "shop.test", "port": 9000}"#) == [
            "port (tenant shop): a server setting, the same for every tenant; a tenant cannot set it",
        ])
        let unknown = try problems(#"{"id": "shop", "rpID": "shop.test", "rpNmae": "Shop"}"#)
        #expect(unknown == [#"rpNmae (tenant shop): unknown member; did you mean "rpName"?"#])
        let typed = try problems(#"{"id": "shop", "rpID": "shop.test", "challengeTimeout": "soon"}"#)
        #expect(typed.count == 1 && typed[0].hasPrefix("challengeTimeout (tenant shop): "), "\(typed)")
        let hosts = try problems(#"{"id": "shop", "rpID": "shop.test", "hosts": ["Shop.test:8443", "a.test", "a.test"]}"#)
        #expect(hosts.count == 2 && hosts.allSatisfy { $0.hasPrefix("hosts (tenant shop): ") }, "\(hosts)")
        #expect(try problems(#"{"rpID": "shop.test"}"#) == ["id: a tenant needs an id"])
        let secretless = try problems(#"{"id": "shop", "rpID": "shop.test", "webhookURLs": ["https://hooks.shop.test/"]}"#)
        #expect(secretless.count == 1 && secretless[0].hasPrefix("webhookSecret (tenant shop): "), "\(secretless)")
    }

    @Test func aPatchReplacesRemovesAndKeepsTheID() throws {
        let settings = try TenantSettings(
            document: try document(#"{"id": "shop", "rpID": "shop.test", "rpName": "Shop", "userVerification": "discouraged"}"#),
            server: server)
        let patched = try settings.patched(with: try document(#"{"rpName": "The Shop", "userVerification": null}"#), server: server)
        #expect(patched.configuration.rpName == "The Shop")
        #expect(patched.configuration.userVerification == .required, "removed: the server's again")
        #expect(patched.configuration.rpID.value == "shop.test")
        let renamed = #expect(throws: ConfigurationError.self) {
            try settings.patched(with: try document(#"{"id": "other"}"#), server: server)
        }
        #expect(renamed?.problems.first?.hasPrefix("id (tenant shop): ") == true)
    }
}
