import Foundation
import HTTPTypes
@testable import LatchkeyServer
@testable import LatchkeyService
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
            harness.store.close()
            // A probe's verdict answers every asker for a second.
            try await Task.sleep(for: .seconds(StoreHealth.reuseInterval + 0.1))
            let unready = try await client.send(.get, "/readyz")
            #expect(unready.status == .serviceUnavailable && unready.errorMessage == "the store cannot take writes")
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

/// Metrics: what is counted and who may read them.
@Suite("Metrics routes")
struct MetricsRouteTests {
    @Test func ceremoniesVerificationAndStoreCallsAreMeasured() async throws {
        let harness = try RouteHarness { $0.metricsToken = "scrape-token" }
        try await harness.run { client in
            let authenticator = TestAuthenticator()
            #expect(try await client.register("pat", with: authenticator).isOK)
            #expect(try await client.signIn(nil, with: authenticator).isOK)
            let options = try await client.post("/assertion/options", [:])
            let foreign = try await client.post(
                "/assertion/result", try authenticator.assert(options.json, clientDataOrigin: "https://evil.example"))
            #expect(foreign.status == .badRequest)

            #expect(try await client.send(.get, "/metrics").status == .unauthorized)
            #expect(try await client.send(.get, "/metrics", headers: [.authorization: "Bearer wrong"]).status == .unauthorized)
            let scraped = try await client.send(.get, "/metrics", headers: [.authorization: "Bearer scrape-token"])
            #expect(scraped.status == .ok && scraped.headers[.contentType]?.hasPrefix("text/plain") == true)
            let text = scraped.text
            for line in [
                #"latchkey_ceremonies_total{ceremony="registration-result",outcome="ok"} 1"#,
                #"latchkey_ceremonies_total{ceremony="authentication-result",outcome="ok"} 1"#,
                #"latchkey_ceremonies_total{ceremony="authentication-options",outcome="ok"} 2"#,
                #"latchkey_verification_duration_seconds_count{ceremony="authentication-result"} 2"#,
                #"latchkey_store_duration_seconds_count{operation="signInLookup"} 2"#,
                // Writable from the start, though nobody asked /readyz.
                "latchkey_store_writable 1",
                // At 0 before any fault, so that an alert on its increase sees the first.
                #"latchkey_store_faults_total{reason="unavailable"} 0"#, #"latchkey_store_faults_total{reason="full"} 0"#,
            ] {
                #expect(text.contains(line), "missing \(line)")
            }
            let refusal = text.split(separator: "\n").first { $0.hasPrefix(#"latchkey_ceremonies_total{ceremony="authentication-result",outcome="origin"#) }
            #expect(refusal != nil, "the refusal is counted under the check that failed")
        }
    }

    @Test func withoutATokenMetricsAreNotOnThePublicListener() async throws {
        try await RouteHarness().run { client in
            let reply = try await client.send(.get, "/metrics")
            #expect(reply.status == .notFound)
        }
    }
}
