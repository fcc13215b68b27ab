import Foundation
import HTTPTypes
import Testing

/// Health checks and request IDs.
@Suite("Operations routes")
struct OperationsRouteTests {
    @Test func healthAndReadiness() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            #expect(try await client.send(.get, "/healthz").isOK)
            #expect(try await client.send(.get, "/readyz").isOK)
            #expect(try await client.send(.head, "/readyz").status == .ok)
            await harness.store.close()
            let unready = try await client.send(.get, "/readyz")
            #expect(unready.status == .serviceUnavailable && unready.errorMessage == "the store does not answer")
            #expect(try await client.send(.get, "/healthz").isOK, "the process still answers")
        }
    }

    @Test func everyReplyCarriesANewRequestIDUnlessATrustedProxySentOne() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let header = HTTPField.Name("X-Request-ID")!
            let first = try await client.send(.get, "/healthz", headers: [header: "client-chosen"])
            let second = try await client.send(.post, "/assertion/options", raw: "not json")
            let ids = [first, second].compactMap { $0.headers[header] }
            #expect(ids.count == 2 && ids[0] != ids[1], "errors carry one too")
            #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) }, "\(ids)")
            #expect(!ids.contains("client-chosen"), "only a trusted proxy's ID is kept")
        }
    }
}
