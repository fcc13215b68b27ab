import Foundation
import HTTPTypes
import LatchkeyStore
import Testing

@testable import LatchkeyServer
@testable import LatchkeyService

/// Rate limits through the router: which routes answer 429, and when (the values alone are the service's tests).
@Suite struct LimitsTests {
    static let client = ClientAddress.Resolver(trustedProxies: []).client(peer: "203.0.113.7", forwardedFor: [])

    @Test func theRateLimitAnswers429WithRetryAfterOnTheCeremonyEndpointsOnly() async throws {
        let harness = try RouteHarness(timeStandsStill: true) { configuration in
            configuration.rateLimit = 1
            configuration.rateLimitBurst = 2
        }
        try await harness.run { client in
            // The burst is served, and with time held still nothing more, however slowly the requests run.
            var allowed = 0
            var refused: RouteReply?
            for _ in 0..<20 where refused == nil {
                let reply = try await client.send(.post, allowed % 2 == 0 ? "/assertion/options" : "/attestation/result", json: [:])
                if reply.status == .tooManyRequests { refused = reply } else { allowed += 1 }
            }
            let refusal = try #require(refused, "20 requests at once never met the limit of 1 a second (2 at once)")
            #expect(allowed == 2)
            #expect(refusal.isFailure && refusal.errorMessage.contains("at most 1 a second"))
            #expect(refusal.headers[.retryAfter] == "1")
            #expect(try await client.send(.get, "/session").status == .unauthorized)
        }
    }

    /// The limit follows the route the router matched, so another spelling of a path that reaches the
    /// same handler draws on the same bucket; App Attest and device keys are limited as passkeys are.
    @Test(arguments: [
        "/assertion/options/", "//assertion//options", "/assertion/result/", "/attestation//options", "/device-keys/sign-in/",
        "/device-keys/", "/app-attest/challenge", "/app-attest//keys", "/app-attest/assertions/",
    ])
    func theRateLimitFollowsTheMatchedRoute(path: String) async throws {
        let harness = try RouteHarness(timeStandsStill: true) { configuration in
            configuration.rateLimit = 1
            configuration.rateLimitBurst = 1
            configuration.appleAppIDs = ["ABCDE12345.com.example.app"]
            configuration.appAttest = .optional
        }
        try await harness.run { client in
            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<2 {
                statuses.append(try await client.send(.post, path, json: [:]).status)
            }
            #expect(statuses.last == .tooManyRequests && statuses.first != .tooManyRequests, "\(path): \(statuses)")
            #expect(!statuses.contains(.notFound), "\(path) reaches a route")
        }
    }

    @Test func conformanceModeTurnsOffThePerClientLimits() async throws {
        let harness = try RouteHarness(conformanceMode: true) { configuration in
            configuration.rateLimit = 1
            configuration.rateLimitBurst = 1
            configuration.pendingChallengesPerClient = 1
        }
        try await harness.run { client in
            for _ in 0..<5 {
                let reply = try await client.send(.post, "/assertion/options", json: [:])
                #expect(reply.isOK)
            }
        }
    }
}
