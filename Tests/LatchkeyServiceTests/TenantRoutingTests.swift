import LatchkeyStore
import Testing

@testable import LatchkeyService

/// How a request's host and path choose its tenant.
@Suite("Tenant routing")
struct TenantRoutingTests {
    let shop = TenantID("shop")!
    let staff = TenantID("staff")!

    func routing(fallback: TenantID? = nil) throws -> TenantRouting {
        try TenantRouting(hosts: [shop: ["shop.example", "Login.Shop.Example:443"], staff: ["staff.example"]], fallback: fallback)
    }

    @Test func aListedHostIsItsTenantsWhateverItsCaseAndPort() throws {
        let routing = try routing()
        #expect(routing.choose(host: "shop.example", path: "/assertion/options") == .tenant(shop, path: "/assertion/options"))
        #expect(routing.choose(host: "LOGIN.shop.example.:8443", path: "/") == .tenant(shop, path: "/"))
        #expect(routing.choose(host: "staff.example", path: "/session") == .tenant(staff, path: "/session"))
    }

    @Test func anUnlistedHostIsRefusedWithoutAFallback() throws {
        #expect(try routing().choose(host: "evil.example:80", path: "/session") == .unknownHost("evil.example"))
        #expect(try routing().choose(host: nil, path: "/session") == .unknownHost(""))
        #expect(try routing(fallback: .default).choose(host: "evil.example", path: "/session") == .tenant(.default, path: "/session"))
    }

    /// The path prefix wins over the host: an API client names its tenant on a shared API host.
    @Test func aPathPrefixNamesTheTenantAndIsTakenOff() throws {
        let routing = try routing()
        #expect(routing.choose(host: "api.example", path: "/t/staff/assertion/options") == .tenant(staff, path: "/assertion/options"))
        #expect(routing.choose(host: "shop.example", path: "/t/staff/session") == .tenant(staff, path: "/session"))
        #expect(routing.choose(host: "shop.example", path: "/t/staff") == .tenant(staff, path: "/"))
        #expect(routing.choose(host: "shop.example", path: "/t/nobody/session") == .unknownTenant("nobody"))
        #expect(routing.choose(host: "shop.example", path: "/t/Not_An_ID/session") == .unknownTenant("Not_An_ID"))
        // Only the exact segment is a prefix.
        #expect(routing.choose(host: "shop.example", path: "/tickets/x") == .tenant(shop, path: "/tickets/x"))
    }

    @Test func aHostListedByTwoTenantsIsAConflict() {
        #expect(throws: TenantRouting.Conflict.self) {
            try TenantRouting(hosts: [shop: ["one.example"], staff: ["ONE.example:443"]], fallback: nil)
        }
    }

    @Test func aSingleTenantServerServesEveryHostAsTheDefaultTenant() {
        let routing = TenantRouting.singleTenant
        #expect(routing.choose(host: "anything.example", path: "/session") == .tenant(.default, path: "/session"))
        #expect(routing.choose(host: nil, path: "/t/default/session") == .tenant(.default, path: "/session"))
        #expect(routing.choose(host: nil, path: "/t/other/session") == .unknownTenant("other"))
    }

    @Test func hostNamesAreComparedWithoutPortCaseOrFinalDot() {
        #expect(TenantRouting.hostName("Login.Example.com.:443") == "login.example.com")
        #expect(TenantRouting.hostName("[::1]:8080") == "[::1]")
        #expect(TenantRouting.hostName("localhost") == "localhost")
    }
}
