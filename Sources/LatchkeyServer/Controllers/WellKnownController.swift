import Foundation
import Hummingbird
import NIOCore

/// The files under `/.well-known/` that associate apps and other origins with this relying party:
/// 200 `application/json` when configured, else 404 naming the keys to set. Never a redirect.
struct WellKnownController: Sendable {
    let files: [WellKnownFile]

    func addRoutes(to group: RouterGroup<LatchkeyRequestContext>) {
        for file in files {
            let reply = Self.reply(for: file)
            group.get(RouterPath(file.name)) { _, _ in reply }
            group.head(RouterPath(file.name)) { _, _ in reply.createHeadResponse() }
        }
    }

    static func reply(for file: WellKnownFile) -> Response {
        guard let body = file.body else {
            let variables = file.keys.map(LatchkeyConfiguration.environmentName(of:))
            return JSONResponse.failed(
                "\(file.path) is not configured (set \(variables.joined(separator: " or ")))", status: .notFound)
        }
        return Response(
            status: .ok, headers: [.contentType: JSONResponse.contentType, .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
