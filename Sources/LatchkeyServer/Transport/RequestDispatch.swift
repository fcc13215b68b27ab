import NIOCore
import NIOHTTP1

/// Where a listener's requests go: one site's ``Responder``, or the site of the tenant each request is for.
enum RequestDispatch: Sendable {
    case site(Responder)
    case tenants(TenantSites, TenantSites.Listener)

    /// Whether the request `head` announces is refused before its body is read (``Responder/refusesBeforeBody(_:peer:)``).
    func refusesBeforeBody(_ head: HTTPRequestHead, peer: SocketAddress?) -> Bool {
        switch self {
        case .site(let responder): responder.refusesBeforeBody(head, peer: peer)
        case .tenants(let sites, let listener): sites.refusesBeforeBody(head, listener: listener, peer: peer)
        }
    }

    func respond(to request: Request, peer: SocketAddress?, on eventLoop: any EventLoop) -> ResponseOutcome {
        switch self {
        case .site(let responder): responder.respond(to: request, peer: peer, on: eventLoop)
        case .tenants(let sites, let listener): sites.respond(to: request, listener: listener, peer: peer, on: eventLoop)
        }
    }
}
