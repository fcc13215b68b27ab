import Foundation
import LatchkeyConfiguration
@testable import LatchkeyServer
import LatchkeyService
import LatchkeyStore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import Testing
import WebAuthn

/// The tenants' sites: a request answered by its tenant's site, made once per service of the tenant; a request no
/// tenant takes refused through the default tenant's site, with a request ID like every reply. (Which services are
/// kept, and for how long, is ``RelyingParties``', tested in LatchkeyServiceTests.)
@Suite struct TenantSitesTests {
    @Test func eachTenantsSiteIsMadeOncePerServiceAndAnswersItsRequests() async throws {
        let fixture = try Fixture(capacity: 2, tenants: ["a", "b", "c"])
        for tenant in ["a", "b", "a", "c", "a", "b"] {
            #expect(try await fixture.reply(to: "/t/\(tenant)/no-such-page").status == .notFound, "an unknown page, answered by \(tenant)'s site")
        }
        // a, b, then c (b, used longest ago, makes way), then b again (c makes way: a was used after it).
        #expect(fixture.made.all == ["a", "b", "c", "b"])
        #expect(fixture.sites.keptTenants <= 3, "sites are kept for at most the services kept, and the default's")
        _ = try await fixture.reply(to: "/t/a/no-such-page")
        #expect(fixture.made.all.count == 4, "a's site is still kept")
        let session = try await fixture.reply(to: "/t/a/session")
        #expect(session.status == .unauthorized, "a's routes answer under its prefix")
    }

    @Test func aRequestNoTenantTakesIsRefusedWithARequestIDLikeEveryReply() async throws {
        let fixture = try Fixture(capacity: 10, tenants: ["a"], invalid: ["broken"])
        let refusals: [(String, String?, HTTPResponseStatus, String)] = [
            ("/t/nobody/session", nil, .notFound, "there is no tenant \"nobody\""),
            ("/t/broken/session", nil, .serviceUnavailable, "tenant broken cannot be served: its settings are no longer valid"),
            ("/session", "stranger.example", .misdirectedRequest, "no tenant serves the host \"stranger.example\""),
        ]
        for (path, host, status, message) in refusals {
            let reply = try await fixture.reply(to: path, host: host)
            #expect(reply.status == status, "\(path)")
            let body = try JSONSerialization.jsonObject(with: Data(String(buffer: reply.body).utf8)) as? [String: Any]
            #expect((body?["errorMessage"] as? String)?.hasPrefix(message) == true, "\(String(buffer: reply.body))")
            #expect(reply.headers[RequestIDs.header] != nil, "\(path): a request ID, as on every reply")
            #expect(reply.headers["X-Content-Type-Options"].first == "nosniff", "\(path): the security headers")
        }
        #expect(try await fixture.reply(to: "/healthz", host: "stranger.example").status == .ok, "the server's own paths answer any host")
    }

    /// Sites over one SQLite store, the main sites counted as they are made.
    struct Fixture {
        let sites: TenantSites
        let made = Made()

        init(capacity: Int, tenants: [String], invalid: [String] = []) throws {
            // The default tenant has a host of its own, so a host nobody lists is refused.
            let harness = try RouteHarness { $0.hosts = ["localhost"] }
            let configuration = harness.configuration
            let now = Date()
            func record(_ id: String, _ settings: String) -> TenantRecord {
                TenantRecord(id: TenantID(id)!, hosts: ["\(id).example"], settings: Array(settings.utf8), createdAt: now, updatedAt: now)
            }
            let records = tenants.map { record($0, #"{"rpID": "\#($0).example", "origins": ["https://\#($0).example"]}"#) }
                + invalid.map { record($0, #"{"rpID": "\#($0).example", "origins": ["https://\#($0).example"], "port": 9}"#) }
            let logger = RouteHarness.logger
            let parties = try RelyingParties(
                configuration: configuration, store: harness.store, attestationTrust: AttestationTrust(policy: configuration.attestation),
                metrics: harness.metrics, directory: TenantDirectory(server: configuration, stored: TenantDirectoryRecord(revision: 1, tenants: records)),
                capacity: capacity)
            let made = made
            let makers = TenantSites.Makers(
                main: { service in
                    made.append(service.store.tenant.rawValue)
                    return try LatchkeyServer.site(service: service, metricsRegistry: nil, logger: logger).responder
                },
                admin: { service in LatchkeyServer.adminSite(service: service, logger: logger).responder })
            sites = TenantSites(
                relyingParties: parties,
                defaultMain: try LatchkeyServer.site(service: parties.shared, metricsRegistry: nil, tenants: parties, logger: logger).responder,
                defaultAdmin: LatchkeyServer.adminSite(service: parties.shared, tenants: parties, logger: logger).responder, makers: makers,
                logger: logger)
        }

        /// The reply to `GET path` on the main listener, with `host` when given.
        func reply(to path: String, host: String? = nil) async throws -> Response {
            var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path)
            if let host { head.headers.add(name: "Host", value: host) }
            switch sites.respond(to: Request(head: head, body: ByteBuffer()), listener: .main, peer: nil, on: MultiThreadedEventLoopGroup.singleton.any()) {
            case .ready(let response): return response
            case .pending(let future): return try await future.get()
            }
        }
    }
}

/// The tenants whose main sites were made, in order, by several threads.
final class Made: Sendable {
    private let tenants = Mutex<[String]>([])

    func append(_ tenant: String) { tenants.withLock { $0.append(tenant) } }
    var all: [String] { tenants.withLock { $0 } }
}
