import Foundation
import LatchkeyConfiguration

/// A file under `/.well-known/` built from configuration: served as JSON when the keys it is made
/// from are set, else answered with 404.
public struct WellKnownFile: Sendable {
    /// The name under `/.well-known/`, such as `assetlinks.json`.
    public let name: String
    /// The configuration keys the file is made from.
    public let keys: [String]
    /// The JSON body, or `nil` when the file is not configured.
    public let body: Data?

    /// `/.well-known/` and the name.
    public var path: String { "/.well-known/" + name }

    /// Why the file is not served: `/.well-known/NAME is not configured (set VARIABLE)`.
    public var notConfigured: String {
        "\(path) is not configured (set \(keys.map(LatchkeyConfiguration.environmentName(of:)).joined(separator: " or ")))"
    }

    /// What `check-config` prints: the path and the indented body, or why it is not served.
    public var summary: String {
        prettyBody.map { "\(path)\n\($0)" } ?? notConfigured
    }

    /// The body indented for people.
    public var prettyBody: String? {
        guard let body, let object = try? JSONSerialization.jsonObject(with: body),
              let pretty = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return nil }
        return String(decoding: pretty, as: UTF8.self)
    }

    package init(name: String, keys: [String], content: (some Encodable)?) {
        self.name = name
        self.keys = keys
        body = content.flatMap { try? Self.encoder.encode($0) }
    }

    /// Sorted keys, so a file is the same bytes on every start.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

extension LatchkeyConfiguration {
    /// Every domain association file, served or not: Apple apps, Android apps, related origins
    /// and passkey endpoints.
    public var wellKnownFiles: [WellKnownFile] {
        [
            WellKnownFile(
                name: "apple-app-site-association", keys: ["appleAppIDs", "appleAppLinks"],
                content: AppleAppSiteAssociation(webCredentialApps: appleAppIDs, appLinkApps: appleAppLinks)),
            WellKnownFile(name: "assetlinks.json", keys: ["androidApps"], content: AssetLinks(apps: androidApps)),
            WellKnownFile(name: "webauthn", keys: ["relatedOrigins"], content: RelatedOrigins(origins: relatedOrigins)),
            WellKnownFile(
                name: "passkey-endpoints", keys: ["passkeyEnrollURL", "passkeyManageURL"],
                content: PasskeyEndpoints(enroll: passkeyEnrollURL, manage: passkeyManageURL)),
        ]
    }
}
