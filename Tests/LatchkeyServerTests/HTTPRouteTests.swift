import Foundation
import HTTPTypes
import Testing

/// Methods, the cross-site guard, well-known files, static files and headers.
@Suite("HTTP routes")
struct HTTPRouteTests {
    @Test(arguments: [HTTPRequest.Method.post, .put, .patch, .delete])
    func everyStateChangingMethodFromAnotherSiteIsRefused(method: HTTPRequest.Method) async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let foreign = try await client.send(method, "/session/logout", raw: "{}", headers: [.origin: "https://evil.example"])
            #expect(foreign.status == .forbidden && foreign.errorMessage.contains("evil.example"), "\(method): \(foreign.text)")
            let fetchSite = try await client.send(method, "/session/logout", raw: "{}", headers: [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"])
            #expect(fetchSite.status == .forbidden, "\(method): \(fetchSite.text)")
        }
    }

    @Test func theRelyingPartysOwnOriginPasses() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let reply = try await client.send(.post, "/assertion/options", raw: "{}", headers: [.origin: "http://localhost:8080"])
            #expect(reply.isOK, "\(reply.text)")
        }
    }

    @Test func getOnACeremonyEndpointIs405WithAllow() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let reply = try await client.send(.get, "/assertion/options")
            #expect(reply.status == .methodNotAllowed && reply.isFailure)
            #expect(reply.headers[.allow] == "POST")
        }
    }

    @Test func appleAppSiteAssociationListsTheConfiguredApps() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let reply = try await client.send(.get, "/.well-known/apple-app-site-association")
            #expect(reply.status == .ok)
            #expect(reply.headers[.contentType]?.hasPrefix("application/json") == true)
            let apps = (reply.json["webcredentials"] as? [String: Any])?["apps"] as? [String]
            #expect(apps == ["ABCDE12345.com.example.app"])
            #expect(reply.json["applinks"] == nil)
        }
    }

    @Test func thePageIsServedWithSecurityHeaders() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let reply = try await client.send(.get, "/")
            #expect(reply.status == .ok && reply.text.contains("<html"))
            #expect(reply.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
            #expect(reply.headers[.xContentTypeOptions] == "nosniff")
        }
    }

    @Test func anUnknownPathIsAJSON404() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let reply = try await client.send(.get, "/no/such/thing")
            #expect(reply.status == .notFound && reply.isFailure)
        }
    }

    @Test func signedOutSessionIs401() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let reply = try await client.send(.get, "/session", headers: [.authorization: "Bearer " + String(repeating: "A", count: 43)])
            #expect(reply.status == .unauthorized && reply.errorMessage == "not signed in")
        }
    }
}
