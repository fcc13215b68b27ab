import Foundation
import LatchkeyService
import NIOCore

/// The files under `/.well-known/` that associate apps and other origins with this relying party:
/// 200 `application/json` when configured, else 404 naming the variables to set. Never a redirect;
/// HEAD is answered by the router from the GET route.
struct WellKnownController: Sendable {
    let files: [WellKnownFile]

    func addRoutes(to group: RouteGroup) {
        for file in files {
            let reply = Self.reply(for: file)
            group.get(file.name, immediately: { _, _ in reply })
        }
    }

    static func reply(for file: WellKnownFile) -> Response {
        guard let body = file.body else { return JSONResponse.failed(file.notConfigured, status: .notFound) }
        return Response(status: .ok, headers: JSONResponse.headers, body: ByteBuffer(bytes: body))
    }
}
