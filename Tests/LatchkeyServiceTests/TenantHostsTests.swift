import Foundation
import LatchkeyConfiguration
import LatchkeyStore
import Testing

@testable import LatchkeyService

/// A tenant may not take the server's own addresses: an IP address (how operators and load balancers reach the
/// server, and no name a passkey can be bound to), the console's host, or a host a listener binds.
@Suite struct TenantHostsTests {
    @Test(arguments: ["127.0.0.1", "10.0.0.7", "192.168.1.1", "1.2.3.4", "0.0.0.0", "127.1"])
    func anAddressIsNoHostName(host: String) {
        #expect(TenantSettings.tenantHostProblem(host)?.contains("is an IP address") == true, "\(host)")
    }

    @Test(arguments: ["shop.example", "login.shop.example", "shop.localhost", "1password.example", "a1.b2"])
    func aNameIsOne(host: String) {
        #expect(TenantSettings.tenantHostProblem(host) == nil, "\(host)")
    }

    /// Records stored before these were refused are not served; the server keeps its traffic.
    @Test func aStoredTenantOnTheServersOwnHostIsNotServed() throws {
        var server = LatchkeyConfiguration()
        server.consoleOrigin = "http://console.localhost:8080"
        server.adminAddress = ListenAddress("admin.internal:9000")
        let now = Date()
        func record(_ id: String, _ host: String) -> TenantRecord {
            TenantRecord(id: TenantID(id)!, hosts: [host], settings: Array("{}".utf8), createdAt: now, updatedAt: now)
        }
        let stored = TenantDirectoryRecord(revision: 1, tenants: [
            record("address", "127.0.0.1"), record("console", "console.localhost"), record("admin", "admin.internal"),
            record("shop", "shop.example"),
        ])
        let directory = TenantDirectory(server: server, stored: stored)
        #expect(directory.records.keys.map(\.rawValue).sorted() == ["shop"])
        #expect(directory.problems.count == 3 && directory.problems.allSatisfy { $0.contains("the server's own") })
        #expect(directory.routing.choose(host: "127.0.0.1:8080", path: "/metrics") == .tenant(.default, path: "/metrics"))
        #expect(directory.routing.choose(host: "console.localhost:8080", path: "/") == .tenant(.default, path: "/"))
        #expect(server.ownHosts == ["console.localhost", "admin.internal"])
    }
}
