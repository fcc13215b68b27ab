import HTTPTypes
import LatchkeyService
import NIOHTTP1

/// Refuses state-changing requests that a browser sent on behalf of another site (login CSRF): a
/// POST, PUT, PATCH or DELETE whose `Origin` is not one of the relying party's origins, or that the
/// browser marks `Sec-Fetch-Site: cross-site` without naming one of them in `Origin`. Clients that
/// send neither header (apps, curl) are not affected; together with the JSON content type
/// ``WireDecoder`` requires, a cross-site form cannot post here.
struct CrossSiteRequestGuard: Sendable {
    let origins: Set<String>
    static let fetchSite = HTTPField.Name(known: "Sec-Fetch-Site")

    func check(_ request: Request) throws(APIError) {
        guard request.changesState, !OpenIDController.crossSitePaths.contains(request.uri.path) else { return }
        let fetchSites = request.headers[values: Self.fetchSite].map { $0.lowercased() }
        if let origin = request.headers[.origin] {
            // A form of our own pages: under `Referrer-Policy: no-referrer` a browser sends `Origin: null`, and says
            // where the request came from in `Sec-Fetch-Site`, which no page can set.
            if origin == "null", !fetchSites.isEmpty, fetchSites.allSatisfy({ $0 == "same-origin" }) { return }
            guard origins.contains(origin) else {
                throw APIError(.forbidden, "cross-site request refused: Origin \(origin.debugDescription) is not an origin of this relying party")
            }
            // One of the relying party's own pages, on this site or (a related origin) another.
            return
        }
        // Any copy of the header, in any case: what browsers never send is no reason to let it through.
        if fetchSites.contains("cross-site") {
            throw APIError(.forbidden, "cross-site request refused (Sec-Fetch-Site: cross-site)")
        }
    }
}
