import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyService

/// A wrong method on a file of the page (`POST /`, `DELETE /app.js`) is a 405 with
/// `Allow: GET, HEAD`, as on every API path, instead of the router's 404. Sits outside the file
/// middleware, which serves only GET and HEAD.
struct StaticFileMethodsMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The folder served at `/`.
    let publicDirectory: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method != .get, request.method != .head, request.method != .options else {
            return try await next(request, context)
        }
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            guard servesFile(at: request.uri.path) else { throw error }
            throw APIError(.methodNotAllowed, "\(request.uri.path) is a file of the page: it takes GET or HEAD", headers: [.allow: "GET, HEAD"])
        }
    }

    /// Whether the file middleware would serve `path`: a file in the folder, or a folder with an
    /// `index.html`. Paths that climb out of the folder serve nothing.
    private func servesFile(at path: String) -> Bool {
        guard PathSegments.dotSegment(in: path) == nil else { return false }
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        var url = URL(fileURLWithPath: publicDirectory)
        for component in components { url.appendPathComponent(String(component)) }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { return false }
        return !isFolder.boolValue || FileManager.default.fileExists(atPath: url.appendingPathComponent("index.html").path)
    }
}
