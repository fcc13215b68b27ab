import LatchkeyService

/// `GET /site`: what a page needs to draw itself before anyone signs in: the relying party's ID and name (a
/// tenant's own), and whether the request carries a live session. Never a 401, so a signed-out page load asks
/// nothing that fails; `GET /session` stays the signed-in route that says who.
struct SiteController: Sendable {
    let routes: ServiceRoutes

    func addRoutes(to group: RouteGroup) {
        group.get(use: describe)
    }

    @Sendable func describe(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let relyingParty = routes.service.relyingParty
        return JSONResponse.make(SiteReply(rpId: relyingParty.id, rpName: relyingParty.name, signedIn: context.identity != nil))
    }
}
