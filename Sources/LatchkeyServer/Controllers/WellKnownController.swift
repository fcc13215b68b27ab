import Hummingbird

/// The files under `/.well-known/` that associate apps with this relying party.
struct WellKnownController: Sendable {
    let appleAppSiteAssociation: AppleAppSiteAssociation

    func addRoutes(to group: RouterGroup<LatchkeyRequestContext>) {
        group.get("apple-app-site-association") { _, _ in
            JSONResponse.make(appleAppSiteAssociation)
        }
    }
}
