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

/// The tenants' sites kept in memory: at most `capacity` besides the default tenant's, the one used longest ago
/// making way; a tenant whose settings no longer read is refused and logged once per record.
@Suite struct TenantSitesTests {
    @Test func theTenantUsedLongestAgoMakesWayBeyondTheCapacity() async throws {
        let fixture = try Fixture(capacity: 2, tenants: ["a", "b", "c"])
        for tenant in ["a", "b", "a", "c", "a", "b"] {
            #expect(try await fixture.status(of: tenant) == .notFound, "an unknown page, answered by tenant \(tenant)'s site")
        }
        // a, b, then c (b, used longest ago, makes way), then b again (c makes way: a was used after it).
        #expect(fixture.made.all == ["a", "b", "c", "b"])
        #expect(fixture.sites.keptTenants == 2)
        _ = try await fixture.status(of: "a")
        #expect(fixture.made.all.count == 4, "a is still kept")
    }

    @Test func aTenantWhoseSettingsNoLongerReadIsRefusedAndLoggedOncePerRecord() async throws {
        let fixture = try Fixture(capacity: 10, tenants: ["a"], invalid: ["broken"])
        for _ in 0..<3 {
            #expect(try await fixture.status(of: "broken") == .serviceUnavailable)
        }
        #expect(fixture.logged.all.filter { $0.contains("no longer read") }.count == 1)
        #expect(try await fixture.status(of: "a") == .notFound, "the other tenants are served")
        #expect(fixture.made.all == ["a"])
    }

    /// Sites over one SQLite store, their services counted as they are made.
    struct Fixture {
        let sites: TenantSites
        let made = Lines()
        let logged = Lines()

        init(capacity: Int, tenants: [String], invalid: [String] = []) throws {
            let harness = try RouteHarness()
            let configuration = harness.configuration
            let now = Date()
            func record(_ id: String, _ settings: String) -> TenantRecord {
                TenantRecord(id: TenantID(id)!, hosts: ["\(id).example"], settings: Array(settings.utf8), createdAt: now, updatedAt: now)
            }
            let records = tenants.map { record($0, #"{"rpID": "\#($0).example", "origins": ["https://\#($0).example"]}"#) }
                + invalid.map { record($0, #"{"rpID": "\#($0).example", "origins": ["https://\#($0).example"], "port": 9}"#) }
            let directory = TenantDirectory(server: configuration, stored: TenantDirectoryRecord(revision: 1, tenants: records))
            let logged = logged
            let logger = Logger(label: "tenant-sites-tests") { _ in RecordingLogHandler(lines: logged) }
            let store = harness.store
            let trust = AttestationTrust(policy: configuration.attestation)
            @Sendable func service(_ configuration: LatchkeyConfiguration, _ tenant: TenantID) -> RelyingPartyService {
                RelyingPartyService(
                    configuration: configuration, store: store.scoped(to: tenant), attestationTrust: trust, appAttestRoots: [],
                    metrics: harness.metrics)
            }
            let shared = service(configuration, .default)
            let made = made
            let makers = TenantSites.Makers(
                service: { tenant in
                    made.append(tenant.id.rawValue)
                    return service(tenant.configuration, tenant.id)
                },
                main: { service in try LatchkeyServer.site(service: service, metricsRegistry: nil, logger: logger).responder },
                admin: { service in LatchkeyServer.adminSite(service: service, logger: logger).responder })
            sites = TenantSites(
                directory: directory, defaultService: shared,
                defaultMain: try LatchkeyServer.site(service: shared, metricsRegistry: nil, logger: logger).responder,
                defaultAdmin: LatchkeyServer.adminSite(service: shared, logger: logger).responder, makers: makers, capacity: capacity,
                logger: logger)
        }

        /// The status of a request for a page nobody has, through `tenant`'s path prefix.
        func status(of tenant: String) async throws -> HTTPResponseStatus {
            let request = Request(head: HTTPRequestHead(version: .http1_1, method: .GET, uri: "/t/\(tenant)/no-such-page"), body: ByteBuffer())
            switch sites.respond(to: request, listener: .main, peer: nil, on: MultiThreadedEventLoopGroup.singleton.any()) {
            case .ready(let response): return response.status
            case .pending(let future): return try await future.get().status
            }
        }
    }
}

/// Keeps every message logged.
private struct RecordingLogHandler: LogHandler {
    let lines: Lines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.append(event.message.description)
    }
}

/// Lines kept by several threads.
final class Lines: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
