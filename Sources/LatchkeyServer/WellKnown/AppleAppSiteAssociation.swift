/// `/.well-known/apple-app-site-association`: lets the listed iOS apps use passkeys for this RP ID
/// (`webcredentials`) and, when configured, open its links (`applinks`).
struct AppleAppSiteAssociation: Encodable, Sendable {
    struct WebCredentials: Encodable, Sendable {
        var apps: [String]
    }

    struct AppLinks: Encodable, Sendable {
        struct Detail: Encodable, Sendable {
            var appIDs: [String]
            /// Every path of the site.
            var components = [["/": "*"]]
        }

        var details: [Detail]
    }

    var webcredentials: WebCredentials
    var applinks: AppLinks?

    /// `nil` when no app is configured: the file is then not served.
    init?(webCredentialApps: [String], appLinkApps: [String]) {
        guard !webCredentialApps.isEmpty || !appLinkApps.isEmpty else { return nil }
        webcredentials = WebCredentials(apps: webCredentialApps)
        applinks = appLinkApps.isEmpty ? nil : AppLinks(details: [AppLinks.Detail(appIDs: appLinkApps)])
    }
}
