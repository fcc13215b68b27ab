import Foundation
import LatchkeyConfiguration
import LatchkeyJSON
import LatchkeyStore
import WebAuthn

/// One relying party the server serves: the default one, which the configuration file and variables define, or one
/// an operator made through `/admin/v1/tenants`, whose settings the store keeps.
package struct Tenant: Sendable {
    package let id: TenantID
    /// The server's configuration with the tenant's settings applied (``TenantSettings``).
    package let configuration: LatchkeyConfiguration
    /// What the operator set; nil for the default tenant.
    package let settings: TenantSettings?
    /// As stored; nil for the default tenant.
    package let record: TenantRecord?

    /// The default tenant of a server with this configuration.
    package init(defaultOf server: LatchkeyConfiguration) {
        (id, configuration, settings, record) = (.default, server, nil, nil)
    }

    /// Whether a stored tenant's settings list any webhook URL: read as JSON alone, without the server's
    /// configuration, so a directory of many tenants finds the few with receivers cheaply.
    package static func listsWebhookURLs(_ record: TenantRecord) -> Bool {
        guard case .object(let document)? = try? JSONDecoder().decode(JSONValue.self, from: Data(record.settings)) else { return false }
        switch document["webhookURLs"] {
        case .array(let urls)?: return !urls.isEmpty
        case .string(let urls)?: return !urls.isEmpty  // a list written as one text, as in the environment
        default: return false
        }
    }

    /// A stored tenant read over the server's configuration; throws what ``TenantSettings`` finds wrong (a stored
    /// tenant a changed server configuration no longer admits, say).
    package init(_ record: TenantRecord, server: LatchkeyConfiguration) throws(ConfigurationError) {
        guard case .object(var document)? = try? JSONDecoder().decode(JSONValue.self, from: Data(record.settings)) else {
            throw ConfigurationError("tenant \(record.id): its stored settings are not a JSON object")
        }
        document["id"] = .string(record.id.rawValue)
        document["hosts"] = .array(record.hosts.map(JSONValue.string))
        let settings = try TenantSettings(document: document, server: server)
        (id, configuration, self.settings, self.record) = (record.id, settings.configuration, settings, record)
    }

    /// The record that stores `settings`, made or changed at `now`.
    package static func record(of settings: TenantSettings, id: TenantID, createdAt: Date, now: Date) -> TenantRecord {
        let members = JSONValue.object(settings.members)
        let text = (try? JSONEncoder.sortedKeys.encode(members)).map(Array.init) ?? Array("{}".utf8)
        return TenantRecord(id: id, hosts: settings.hosts, settings: text, createdAt: createdAt, updatedAt: now)
    }
}

extension JSONEncoder {
    /// Keys sorted, so one document is always stored as the same text.
    static var sortedKeys: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

/// Every tenant a server serves at one revision of the store's directory, and the routing that chooses among them.
/// Stored tenants are kept as their records and read over the server's configuration only when first served
/// (``tenant(_:)``), so 10,000 tenants cost their records and one routing table, not 10,000 configurations.
package struct TenantDirectory: Sendable {
    /// The store's revision this was read at (0 before any tenant was made).
    package let revision: Int64
    /// The server's configuration: the default tenant's, and the base of every other.
    package let server: LatchkeyConfiguration
    /// The stored tenants served, by ID.
    package let records: [TenantID: TenantRecord]
    package let routing: TenantRouting
    /// One line per stored tenant left out, and why (a host the default tenant's).
    package let problems: [String]

    /// The server's default tenant alone: a single-tenant server's directory.
    package init(server: LatchkeyConfiguration) {
        self.init(server: server, stored: TenantDirectoryRecord(revision: 0, tenants: []))
    }

    /// The default tenant and every stored tenant. The default tenant's hosts are the configuration's `hosts`; when
    /// it lists none, it also takes every host no tenant lists (the fallback).
    package init(server: LatchkeyConfiguration, stored: TenantDirectoryRecord) {
        var records: [TenantID: TenantRecord] = [:]
        var problems: [String] = []
        var owners: [String: TenantID] = [:]
        owners.reserveCapacity(stored.tenants.count + server.hosts.count)
        for host in server.hosts { owners[TenantRouting.hostName(host)] = .default }
        let ownHosts = server.ownHosts
        for record in stored.tenants where record.id != .default {
            if let taken = record.hosts.first(where: { owners[TenantRouting.hostName($0)] != nil }) {
                problems.append("tenant \(record.id): not served: its host \(taken) is the default tenant's (hosts)")
                continue
            }
            // Stored before such hosts were refused: the server's own addresses and names stay the server's.
            if let taken = record.hosts.first(where: { TenantSettings.tenantHostProblem($0) != nil || ownHosts.contains(TenantRouting.hostName($0)) }) {
                problems.append("tenant \(record.id): not served: its host \(taken) is an address or the server's own")
                continue
            }
            for host in record.hosts { owners[TenantRouting.hostName(host)] = record.id }
            records[record.id] = record
        }
        // Every tenant is known to the path prefix, hosts or not.
        var hosts: [TenantID: [String]] = Dictionary(uniqueKeysWithValues: records.keys.map { ($0, []) })
        hosts[.default] = []
        for (host, tenant) in owners { hosts[tenant, default: []].append(host) }
        // Hosts are unique by construction, so there is no conflict left to find; were there one, no host is served.
        let routing = (try? TenantRouting(hosts: hosts, fallback: server.hosts.isEmpty ? .default : nil)) ?? .refusingEveryHost
        (revision, self.server, self.records, self.routing, self.problems) = (stored.revision, server, records, routing, problems)
    }

    /// The tenant `id` names, its settings read over the server's configuration; nil when there is none. Throws what
    /// is wrong with settings the server's configuration no longer admits (such a tenant is not served).
    package func tenant(_ id: TenantID) throws(ConfigurationError) -> Tenant? {
        if id == .default { return Tenant(defaultOf: server) }
        guard let record = records[id] else { return nil }
        return try Tenant(record, server: server)
    }
}
