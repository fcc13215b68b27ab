import Foundation
import LatchkeyConfiguration
@testable import LatchkeyService
import LatchkeyStore
import LatchkeyStoreSQLite
import Logging
import Synchronization
import Testing
import WebAuthn

/// The relying parties of one server, without HTTP: every service made by one recipe, at most `capacity` stored
/// tenants' kept (the one used longest ago making way), a changed record getting a new service, a tenant whose
/// settings no longer read refused and logged once per record.
@Suite struct RelyingPartiesTests {
    @Test func theTenantUsedLongestAgoMakesWayBeyondTheCapacity() throws {
        let fixture = try Fixture(capacity: 2, tenants: ["a", "b", "c"])
        let a = try fixture.service("a"), b = try fixture.service("b")
        #expect(try fixture.service("a") === a, "kept: the same service")
        _ = try fixture.service("c")  // b, used longest ago, makes way
        #expect(fixture.parties.keptTenants == 2)
        #expect(try fixture.service("a") === a)
        #expect(try fixture.service("b") !== b, "made again after making way")
        #expect(!fixture.parties.isCurrent(b) && fixture.parties.isCurrent(a))
    }

    @Test func everyServiceIsItsTenantsOwnMadeByOneRecipe() throws {
        let fixture = try Fixture(capacity: 10, tenants: ["a"])
        let shared = try fixture.parties.service(for: .default, logger: fixture.logger)
        #expect(shared === fixture.parties.shared)
        let a = try fixture.service("a")
        #expect(a.store.tenant == TenantID("a") && a.relyingParty.id == "a.example")
        #expect(a.configuration.origins == ["https://a.example"])
        #expect(a.limits === shared.limits && a.metrics === shared.metrics, "limits and metrics are the server's")
        #expect(a.configuration.attestation == shared.configuration.attestation)
        #expect(RelyingParties.store(of: try #require(try fixture.parties.directory.tenant(TenantID("a")!)), in: fixture.store).tenant
            == TenantID("a"))
    }

    @Test func aChangedRecordGetsANewServiceAndAnUnknownTenantNone() throws {
        let fixture = try Fixture(capacity: 10, tenants: ["a", "b"])
        let a = try fixture.service("a"), b = try fixture.service("b")
        let changed = fixture.record("a", #"{"rpID": "a.example", "origins": ["https://a.example"], "rpName": "A, renamed"}"#)
        fixture.parties.update(to: TenantDirectory(
            server: fixture.configuration, stored: TenantDirectoryRecord(revision: 2, tenants: [changed, fixture.records[1]])))
        let renamed = try fixture.service("a")
        #expect(renamed !== a && renamed.relyingParty.name == "A, renamed")
        #expect(try fixture.service("b") === b, "an unchanged tenant keeps its service")
        #expect(throws: RelyingParties.Refusal.unknownTenant(TenantID("c")!)) { try fixture.service("c") }
        // An older directory never replaces a newer one.
        fixture.parties.update(to: TenantDirectory(server: fixture.configuration, stored: TenantDirectoryRecord(revision: 1, tenants: [])))
        #expect(try fixture.service("a") === renamed)
    }

    @Test func aTenantWhoseSettingsNoLongerReadIsRefusedAndLoggedOncePerRecord() throws {
        let fixture = try Fixture(capacity: 10, tenants: ["a"], invalid: ["broken"])
        for _ in 0..<3 {
            #expect {
                try fixture.service("broken")
            } throws: { error in
                guard case .unservable(let id, let reason)? = error as? RelyingParties.Refusal else { return false }
                return id == TenantID("broken") && reason.contains("no longer valid")
            }
        }
        #expect(fixture.logged.all.filter { $0.contains("no longer read") }.count == 1)
        #expect(try fixture.service("a").store.tenant == TenantID("a"), "the other tenants are served")
    }

    @Test func theOperatorsAreARelyingPartyOfTheirOwnWhenTheConsoleHasAnOrigin() throws {
        let fixture = try Fixture(capacity: 10, tenants: [], withOperators: true)
        let operators = try #require(fixture.parties.operators)
        #expect(operators.store.tenant == .operators)
        #expect(operators.configuration.origins == [fixture.configuration.consoleOrigin])
        #expect(operators.limits === fixture.parties.shared.limits)
        #expect(try Fixture(capacity: 10, tenants: []).parties.operators == nil, "not asked for")
    }

    @Test func aTenantListsWebhookURLsOnlyWhenItsSettingsNameAtLeastOne() {
        let cases: [(String, Bool)] = [
            (#"{"webhookURLs": ["https://hooks.example/a"]}"#, true), (#"{"webhookURLs": "https://hooks.example/a"}"#, true),
            (#"{"webhookURLs": []}"#, false), (#"{"rpName": "webhookURLs"}"#, false), (#"{"note": {"webhookURLs": ["x"]}}"#, false),
            ("not json", false),
        ]
        for (settings, lists) in cases {
            let record = TenantRecord(id: TenantID("t")!, hosts: [], settings: Array(settings.utf8), createdAt: Date(), updatedAt: Date())
            #expect(Tenant.listsWebhookURLs(record) == lists, "\(settings)")
        }
    }

    /// Relying parties over one SQLite store, with a directory of `tenants` and of `invalid` ones (whose settings name
    /// a server key).
    struct Fixture {
        let configuration: LatchkeyConfiguration
        let store: SQLiteStore
        let parties: RelyingParties
        let records: [TenantRecord]
        let logged = Lines()
        let logger: Logger

        init(capacity: Int, tenants: [String], invalid: [String] = [], withOperators: Bool = false) throws {
            var configuration = LatchkeyConfiguration()
            configuration.consoleOrigin = "http://console.localhost:8080"
            self.configuration = configuration
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-parties-\(UUID().uuidString)")
            store = try SQLiteStore(path: folder.appendingPathComponent("latchkey.sqlite").path)
            let now = Date()
            func record(_ id: String, _ settings: String) -> TenantRecord {
                TenantRecord(id: TenantID(id)!, hosts: ["\(id).example"], settings: Array(settings.utf8), createdAt: now, updatedAt: now)
            }
            records = tenants.map { record($0, #"{"rpID": "\#($0).example", "origins": ["https://\#($0).example"]}"#) }
                + invalid.map { record($0, #"{"rpID": "\#($0).example", "origins": ["https://\#($0).example"], "port": 9}"#) }
            let logged = logged
            logger = Logger(label: "relying-parties-tests") { _ in RecordingLogHandler(lines: logged) }
            parties = try RelyingParties(
                configuration: configuration, store: store, attestationTrust: AttestationTrust(policy: configuration.attestation),
                directory: TenantDirectory(server: configuration, stored: TenantDirectoryRecord(revision: 1, tenants: records)),
                withOperators: withOperators, capacity: capacity)
        }

        func record(_ id: String, _ settings: String) -> TenantRecord {
            TenantRecord(id: TenantID(id)!, hosts: ["\(id).example"], settings: Array(settings.utf8), createdAt: Date(), updatedAt: Date())
        }

        func service(_ id: String) throws -> RelyingPartyService {
            try parties.service(for: TenantID(id)!, logger: logger)
        }
    }
}

/// Keeps every message logged.
struct RecordingLogHandler: LogHandler {
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
