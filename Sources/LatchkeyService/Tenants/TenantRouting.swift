import LatchkeyStore

/// Which tenant a request is for, chosen in constant time whatever the number of tenants: by an explicit
/// `/t/{tenant}/...` path prefix (API clients calling one shared API host), else by the request's host, each
/// tenant listing its own (so iOS, Android and browsers find each domain's well-known files). A host no
/// tenant lists goes to the ``fallback`` when there is one (a single-tenant server: every host is the
/// default tenant's, as before tenants), and is refused otherwise, never served as another tenant's.
package struct TenantRouting: Sendable, Equatable {
    /// The prefix segment that names a tenant in the path: `/t/{tenant}/assertion/options`.
    package static let pathSegment = "t"
    /// `/t/`, made once rather than per request.
    private static let prefix = "/" + pathSegment + "/"

    /// What a request's host and path choose.
    package enum Choice: Sendable, Equatable {
        /// The tenant, and the path the routes see (the tenant prefix taken off).
        case tenant(TenantID, path: Substring)
        /// The path names a tenant that does not exist (or is not a tenant ID at all).
        case unknownTenant(String)
        /// No tenant lists the host, and there is no fallback.
        case unknownHost(String)
    }

    /// Why a routing could not be made.
    package struct Conflict: Error, Equatable, CustomStringConvertible {
        package let description: String
    }

    private let tenantsByHost: [String: TenantID]
    private let tenants: Set<TenantID>
    /// The tenant of a host nobody lists; nil: such a host is refused.
    package let fallback: TenantID?

    /// Routing over `hosts` (each tenant's host names, with or without a port: a port is ignored, case too);
    /// a host listed by two tenants is a ``Conflict``.
    package init(hosts: [TenantID: [String]], fallback: TenantID?) throws(Conflict) {
        var byHost: [String: TenantID] = [:]
        for (tenant, names) in hosts.sorted(by: { $0.key < $1.key }) {
            for name in names {
                let host = Self.hostName(name)
                if let owner = byHost[host], owner != tenant {
                    throw Conflict(description: "the host \"\(host)\" is listed by both tenant \(owner) and tenant \(tenant)")
                }
                byHost[host] = tenant
            }
        }
        tenantsByHost = byHost
        tenants = Set(hosts.keys).union(fallback.map { [$0] } ?? [])
        self.fallback = fallback
    }

    /// A single-tenant server's: every host and no path prefix is the default tenant.
    package static let singleTenant = TenantRouting(defaultOnly: ())

    private init(defaultOnly: Void) {
        tenantsByHost = [:]
        tenants = [.default]
        fallback = .default
    }

    /// A routing that serves no host and no tenant: what a directory that cannot be routed fails to.
    package static let refusingEveryHost = TenantRouting(refusing: ())

    private init(refusing: Void) {
        tenantsByHost = [:]
        tenants = []
        fallback = nil
    }

    /// The tenant of a request to `path` (as sent) with the `Host` header `host` (nil when it had none).
    package func choose(host: String?, path: String) -> Choice {
        if let (named, rest) = Self.tenantPrefix(of: path) {
            guard let tenant = TenantID(String(named)), tenants.contains(tenant) else { return .unknownTenant(String(named)) }
            return .tenant(tenant, path: rest)
        }
        if !tenantsByHost.isEmpty, let host, let tenant = tenantsByHost[Self.hostName(host)] {
            return .tenant(tenant, path: Substring(path))
        }
        if let fallback { return .tenant(fallback, path: Substring(path)) }
        return .unknownHost(host.map(Self.hostName) ?? "")
    }

    /// `/t/{name}/rest` as `name` and `/rest` (`/` when nothing follows); nil for any other path.
    private static func tenantPrefix(of path: String) -> (name: Substring, rest: Substring)? {
        guard path.hasPrefix(prefix) else { return nil }
        let afterPrefix = path.dropFirst(prefix.count)
        guard let slash = afterPrefix.firstIndex(of: "/") else { return (afterPrefix, "/") }
        return (afterPrefix[..<slash], afterPrefix[slash...])
    }

    /// A host as compared: lowercase, without a port or a final dot (`Login.Example.com.:443` is
    /// `login.example.com`; `[::1]:8080` is `[::1]`).
    package static func hostName(_ host: String) -> String {
        var name = Substring(host)
        if name.hasPrefix("[") {
            if let close = name.firstIndex(of: "]") { name = name[...close] }
        } else if let colon = name.lastIndex(of: ":") {
            name = name[..<colon]
        }
        if name.hasSuffix(".") { name = name.dropLast() }
        return name.lowercased()
    }
}
