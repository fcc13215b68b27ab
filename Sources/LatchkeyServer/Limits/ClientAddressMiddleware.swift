import HTTPTypes
import Hummingbird
import LatchkeyService

/// Works out once per request whom it is counted against (``ClientAddress``): the peer, or the
/// client named in `X-Forwarded-For` when the peer is a trusted proxy.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = LatchkeyRequestContext
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    let resolver: ClientAddress.Resolver

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.clientAddress = resolver.client(peer: context.peerAddress, forwardedFor: request.headers[values: Self.forwardedFor])
        return try await next(request, context)
    }
}
