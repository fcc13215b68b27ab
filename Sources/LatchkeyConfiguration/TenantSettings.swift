import Foundation
import LatchkeyJSON
import WebAuthn

/// One tenant's relying party as an operator defines it: its ID, the hosts whose requests are its, and the
/// configuration keys it sets, in the configuration file's names. The server's configuration (file and variables)
/// is the default tenant's and the base of every other:
///
/// - **Identity keys** (``LatchkeyConfiguration/tenantIdentityKeys``: the RP ID and name, origins, apps, CORS, passkey
///   endpoints, token issuer and audience, webhooks) are the tenant's own: given, or as a new configuration has them
///   (`origins`, `tokenIssuer` and `tokenAudience` follow from its `rpID`), never the default tenant's.
/// - **Policy keys** (``LatchkeyConfiguration/tenantPolicyKeys``: ceremony policy, registration, App Attest, token
///   lifetime, limits and timeouts) are the server's unless the tenant sets them.
/// - Every other key (listeners, the store, paths, logging) is the server's alone; a tenant naming one is refused.
///
/// Each value is checked as `check-config` checks it, and every problem is named: `origins (tenant acme): ...`.
public struct TenantSettings: Sendable, Equatable {
    /// The tenant's ID as given (``TenantID`` checks its form).
    public let id: String
    /// Host names (lowercase, no port) whose requests are this tenant's.
    public let hosts: [String]
    /// The configuration keys the tenant sets, as given: what the store keeps, read again over the server's
    /// configuration at every start.
    public let members: [String: JSONValue]
    /// The server's configuration with the tenant's keys applied.
    public let configuration: LatchkeyConfiguration

    /// The members of a tenant document that are not configuration keys.
    public static let ownMembers: Set<String> = ["id", "hosts"]

    /// Reads a tenant document, `{"id": ..., "hosts": [...], KEY: VALUE, ...}`, over `server`.
    public init(document: [String: JSONValue], server: LatchkeyConfiguration) throws(ConfigurationError) {
        var problems: [String] = []
        var id = ""
        switch document["id"] {
        case .string(let text)?: id = text
        case nil: problems.append("id: a tenant needs an id")
        default: problems.append("id: must be a string")
        }
        let source = "tenant \(id.isEmpty ? "?" : id)"
        var hosts: [String] = []
        switch document["hosts"] {
        case .array(let items)?:
            for item in items {
                guard case .string(let host) = item else {
                    problems.append("hosts (\(source)): each host must be a string")
                    continue
                }
                if let problem = Self.tenantHostProblem(host) { problems.append("hosts (\(source)): \(problem)") } else { hosts.append(host) }
            }
            if Set(hosts).count != hosts.count { problems.append("hosts (\(source)): a host is listed twice") }
        case nil: break
        default: problems.append("hosts (\(source)): must be a list of host names")
        }
        let members = document.filter { !Self.ownMembers.contains($0.key) }
        do throws(ConfigurationError) {
            var configuration = try Self.configuration(members, source: source, server: server)
            configuration.hosts = hosts
            self.configuration = configuration
        } catch {
            problems += error.problems
            configuration = server
        }
        guard problems.isEmpty else { throw ConfigurationError(problems: problems) }
        (self.id, self.hosts, self.members) = (id, hosts, members)
    }

    /// This tenant with `changes` applied: a member given replaces the tenant's, `null` removes it (back to its
    /// default); `id` cannot change.
    public func patched(with changes: [String: JSONValue], server: LatchkeyConfiguration) throws(ConfigurationError) -> TenantSettings {
        if let changed = changes["id"], changed != .string(id) {
            throw ConfigurationError("id (tenant \(id)): a tenant's id cannot change; make a new tenant instead")
        }
        var document = members
        document["id"] = .string(id)
        document["hosts"] = .array(hosts.map(JSONValue.string))
        for (name, value) in changes where name != "id" {
            if value == .null { document[name] = nil } else { document[name] = value }
        }
        return try TenantSettings(document: document, server: server)
    }

    /// The whole document: what the store keeps and the tenants API shows (secrets redacted there).
    public var document: [String: JSONValue] {
        var document = members
        document["id"] = .string(id)
        document["hosts"] = .array(hosts.map(JSONValue.string))
        return document
    }

    /// `server` with the tenant's members applied, identity keys reset to their defaults first; every tenant key
    /// checked.
    static func configuration(
        _ members: [String: JSONValue], source: String, server: LatchkeyConfiguration
    ) throws(ConfigurationError) -> LatchkeyConfiguration {
        var problems: [String] = []
        let tenantKeys = Set(LatchkeyConfiguration.tenantIdentityKeys + LatchkeyConfiguration.tenantPolicyKeys)
        for name in members.keys.sorted() where !tenantKeys.contains(name) && !name.hasPrefix("_") {
            if LatchkeyConfiguration.key(named: name) != nil {
                problems.append("\(name) (\(source)): a server setting, the same for every tenant; a tenant cannot set it")
            } else {
                let hint = ConfigurationLoader.closestKey(to: name).map { "did you mean \"\($0)\"?" } ?? "not a configuration key"
                problems.append("\(name) (\(source)): unknown member; \(hint)")
            }
        }
        var configuration = server
        let fresh = LatchkeyConfiguration()
        let identity = Set(LatchkeyConfiguration.tenantIdentityKeys)
        var unreadable: Set<String> = []
        var derived: Set<String> = []
        // In the keys' order, so a derived default (origins) follows from the tenant's own rpID.
        for key in LatchkeyConfiguration.keys where tenantKeys.contains(key.name) {
            var keyProblems: [String] = []
            if let value = members[key.name] {
                if let content = key.kind.content(value) {
                    keyProblems = key.set(&configuration, content)
                } else {
                    keyProblems = [key.kind.expectation]
                }
            } else if identity.contains(key.name) {
                if let derivedDefault = key.derivedDefault {
                    derived.insert(key.name)
                    keyProblems = key.set(&configuration, derivedDefault.compute(configuration))
                } else {
                    keyProblems = key.set(&configuration, key.get(fresh))
                }
            }
            if !keyProblems.isEmpty {
                unreadable.insert(key.name)
                problems += keyProblems.map { "\(key.name) (\(source)): \($0)" }
            }
        }
        for key in LatchkeyConfiguration.keys where tenantKeys.contains(key.name) && !unreadable.contains(key.name) {
            // As at start: a derived default is not checked once a key before it has a problem it would repeat.
            if derived.contains(key.name), !problems.isEmpty { continue }
            if key.reads.contains(where: unreadable.contains) { continue }
            let shown = derived.contains(key.name) ? "\(source), derived" : source
            problems += key.check(configuration).map { "\(key.name) (\(shown)): \($0)" }
        }
        guard problems.isEmpty else { throw ConfigurationError(problems: problems) }
        return configuration
    }

    /// A host name as a `Host` header carries it, lowercase and without a port: labels of letters, digits and `-`.
    public static func hostProblem(_ host: String) -> String? {
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        let isLabel: (Substring) -> Bool = { label in
            (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                && label.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") }
        }
        guard host.utf8.count <= 253, labels.allSatisfy(isLabel) else {
            return "\"\(host)\" is not a host name (lowercase letters, digits and '-' in dot-separated labels, no port)"
        }
        return nil
    }

    /// ``hostProblem(_:)``, and for a tenant also an address: a host whose last label is all digits is an IPv4 address
    /// to browsers, which passkeys cannot be bound to, and how operators and load balancers reach the server itself.
    public static func tenantHostProblem(_ host: String) -> String? {
        if let problem = hostProblem(host) { return problem }
        if let last = host.split(separator: ".").last, last.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            return "\"\(host)\" is an IP address, not a host name: a site's passkeys are bound to a name, and the server's own address answers for the server"
        }
        return nil
    }
}

extension LatchkeyConfiguration {
    /// The keys that make a tenant who it is: its own, given or as a new configuration has them.
    public static let tenantIdentityKeys = [
        "rpID", "rpName", "origins", "appleAppIDs", "appleAppLinks", "androidApps", "relatedOrigins", "corsOrigins",
        "passkeyEnrollURL", "passkeyManageURL", "webhookURLs", "webhookSecret", "webhookPreviousSecret", "tokenIssuer",
        "tokenAudience", "allowCrossOrigin", "topOrigins",
    ]

    /// The keys of policy a tenant may set; those it does not set are the server's.
    public static let tenantPolicyKeys = [
        "appAttest", "appAttestEnvironment", "challengeTimeout", "sessionTimeout", "reauthenticateAfter", "rateLimit",
        "rateLimitBurst", "pendingChallengesPerClient", "pendingChallengesTotal", "registration", "tokenLifetime",
        "signInTokens", "attestationPolicy", "allowedAAGUIDs", "deniedAAGUIDs", "userVerification", "residentKey", "syncedPasskeys",
        "backupEligibilityChanges", "hideUnknownUsers",
    ]
}
