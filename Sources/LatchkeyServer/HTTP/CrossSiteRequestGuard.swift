import HTTPTypes
import Hummingbird
import LatchkeyService

/// Refuses state-changing requests that a browser sent on behalf of another site (login CSRF): a
/// POST, PUT, PATCH or DELETE whose `Origin` is not one of the relying party's origins, or that the
/// browser marks `Sec-Fetch-Site: cross-site` without naming one of them in `Origin`. Clients that
/// send neither header (apps, curl) are not affected; together with the JSON content type
/// ``RequestJSON`` requires, a cross-site form cannot post here.
struct CrossSiteRequestGuard<Context: RequestContext>: RouterMiddleware {
    let origins: Set<String>
    /// The methods that change state; GET, HEAD and OPTIONS pass.
    static var stateChangingMethods: Set<HTTPRequest.Method> { [.post, .put, .patch, .delete] }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard Self.stateChangingMethods.contains(request.method) else { return try await next(request, context) }
        if let origin = request.headers[.origin] {
            guard origins.contains(origin) else {
                throw APIError(.forbidden, "cross-site request refused: Origin \(origin.debugDescription) is not an origin of this relying party")
            }
            // One of the relying party's own pages, on this site or (a related origin) another.
            return try await next(request, context)
        }
        // Any copy of the header, in any case: what browsers never send is no reason to let it through.
        if let name = HTTPField.Name("Sec-Fetch-Site"), request.headers[values: name].contains(where: { $0.lowercased() == "cross-site" }) {
            throw APIError(.forbidden, "cross-site request refused (Sec-Fetch-Site: cross-site)")
        }
        return try await next(request, context)
    }
}
