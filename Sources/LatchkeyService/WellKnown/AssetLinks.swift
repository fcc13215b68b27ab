import LatchkeyConfiguration
import WebAuthn

/// `/.well-known/assetlinks.json`: Digital Asset Links statements that let the configured Android
/// apps use this site's passkeys (`get_login_creds`) and open its links (`handle_all_urls`). One
/// statement per package, with every signing certificate fingerprint configured for it.
package struct AssetLinks: Encodable, Sendable {
    package struct Statement: Encodable, Sendable {
        package struct Target: Encodable, Sendable {
            package var namespace = "android_app"
            package var packageName: String
            /// Upper-case hex bytes separated by colons, as Android's tools print them.
            package var sha256CertFingerprints: [String]

            package enum CodingKeys: String, CodingKey {
                case namespace
                case packageName = "package_name"
                case sha256CertFingerprints = "sha256_cert_fingerprints"
            }
        }

        package var relation = ["delegate_permission/common.get_login_creds", "delegate_permission/common.handle_all_urls"]
        package var target: Target
    }

    package var statements: [Statement]

    /// `nil` when no app is configured: the file is then not served.
    package init?(apps: [AndroidApp]) {
        guard !apps.isEmpty else { return nil }
        // Packages in the order they were first configured; a fingerprint listed twice, once.
        var packages: [String] = []
        var fingerprints: [String: [String]] = [:]
        for app in apps {
            if fingerprints[app.packageName] == nil { packages.append(app.packageName) }
            if fingerprints[app.packageName, default: []].contains(app.fingerprintText) { continue }
            fingerprints[app.packageName, default: []].append(app.fingerprintText)
        }
        statements = packages.map { package in
            Statement(target: Statement.Target(packageName: package, sha256CertFingerprints: fingerprints[package] ?? []))
        }
    }

    /// The file is a JSON array of statements.
    package func encode(to encoder: any Encoder) throws {
        try statements.encode(to: encoder)
    }
}
