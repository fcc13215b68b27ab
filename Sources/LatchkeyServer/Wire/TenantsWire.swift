import Foundation
import LatchkeyConfiguration
import LatchkeyJSON
import LatchkeyService
import WebAuthn

/// A tenant as `/admin/v1/tenants` shows it: its document (`id`, `hosts`, then the configuration keys it sets, by
/// name), secrets redacted as `check-config` redacts them, then when it was made and changed; `problems` when the
/// server's configuration no longer admits its settings (it is not served then).
struct TenantView: Encodable, Sendable {
    let tenant: StoredTenant

    private struct Key: CodingKey {
        let stringValue: String
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(tenant.record.id.rawValue, forKey: Key("id"))
        try container.encode(tenant.record.hosts, forKey: Key("hosts"))
        // Read already, unless the settings no longer read over the server's configuration.
        let members = tenant.settings?.members
            ?? (try? JSONDecoder().decode([String: JSONValue].self, from: Data(tenant.record.settings))) ?? [:]
        for (name, value) in members.sorted(by: { $0.key < $1.key }) {
            try container.encode(Self.redacted(value, of: name), forKey: Key(name))
        }
        try container.encode(RFC3339.string(tenant.record.createdAt), forKey: Key("createdAt"))
        try container.encode(RFC3339.string(tenant.record.updatedAt), forKey: Key("updatedAt"))
        if !tenant.problems.isEmpty { try container.encode(tenant.problems, forKey: Key("problems")) }
    }

    /// A secret key's value as it may be shown: hidden whole, or a URL's password hidden.
    static func redacted(_ value: JSONValue, of name: String) -> JSONValue {
        switch LatchkeyConfiguration.key(named: name)?.secrecy {
        case .whole?:
            return .string(ConfigurationRedaction.mark)
        case .urlPassword?:
            switch value {
            case .string(let text): return .string(ConfigurationRedaction.redactingURLPassword(text))
            case .array(let items): return .array(items.map { redacted($0, of: name) })
            default: return value
            }
        default:
            return value
        }
    }
}

/// `POST`, `GET` and `PATCH /admin/v1/tenants/{id}`.
struct TenantReply: ReplyBody {
    var tenant: TenantView
}

/// `GET /admin/v1/tenants`: every stored tenant, by ID.
struct TenantList: ReplyBody {
    var tenants: [TenantView]
}
