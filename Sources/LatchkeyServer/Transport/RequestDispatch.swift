import LatchkeyService
import NIOCore
import NIOHTTP1

/// Where a listener's requests go: one site's ``Responder``, or the site of the tenant each request is for.
enum RequestDispatch: Sendable {
    case site(Responder)
    case tenants(TenantSites, TenantSites.Listener)

    /// The rate limit's decision for the request `head` announces, before its body is read
    /// (``Responder/rateLimitDecision(_:peer:)``); nil when none is made yet.
    func rateLimitDecision(_ head: HTTPRequestHead, peer: SocketAddress?) -> TokenBuckets.Decision? {
        switch self {
        case .site(let responder): responder.rateLimitDecision(head, peer: peer)
        case .tenants(let sites, let listener): sites.rateLimitDecision(head, listener: listener, peer: peer)
        }
    }

    func respond(to request: Request, peer: SocketAddress?, on eventLoop: any EventLoop) -> ResponseOutcome {
        switch self {
        case .site(let responder): responder.respond(to: request, peer: peer, on: eventLoop)
        case .tenants(let sites, let listener): sites.respond(to: request, listener: listener, peer: peer, on: eventLoop)
        }
    }
}
