/// `/.well-known/apple-app-site-association`: lets the listed iOS apps use passkeys for this RP ID
/// (`webcredentials`) and, when configured, open its links (`applinks`).
package struct AppleAppSiteAssociation: Encodable, Sendable {
    package struct WebCredentials: Encodable, Sendable {
        package var apps: [String]
    }

    package struct AppLinks: Encodable, Sendable {
        package struct Detail: Encodable, Sendable {
            package var appIDs: [String]
            /// Every path of the site.
            package var components = [["/": "*"]]
        }

        package var details: [Detail]
    }

    package var webcredentials: WebCredentials
    package var applinks: AppLinks?

    /// `nil` when no app is configured: the file is then not served.
    package init?(webCredentialApps: [String], appLinkApps: [String]) {
        guard !webCredentialApps.isEmpty || !appLinkApps.isEmpty else { return nil }
        webcredentials = WebCredentials(apps: webCredentialApps)
        applinks = appLinkApps.isEmpty ? nil : AppLinks(details: [AppLinks.Detail(appIDs: appLinkApps)])
    }
}
