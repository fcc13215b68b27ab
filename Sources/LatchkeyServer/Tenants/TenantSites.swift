import LatchkeyConfiguration
import LatchkeyService
import LatchkeyStore
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// The sites of the tenants a server serves: every request is first given its tenant (``TenantRouting``: the
/// `/t/{tenant}/` path prefix, else its host), then answered by that tenant's site exactly as a single-tenant server's
/// would answer it. The tenants and their services are ``RelyingParties``'; the sites made for a service are kept
/// with it, and made again for the next service of its tenant (its record changed, or it made way for others). A
/// request no tenant takes is refused through the default tenant's site, with a request ID and metrics like every
/// other reply.
final class TenantSites: Sendable {
    /// Which listener's site a request is for.
    enum Listener: Sendable { case main, admin }

    /// How a tenant's service becomes its sites.
    struct Makers: Sendable {
        let main: @Sendable (RelyingPartyService) throws -> Responder
        let admin: @Sendable (RelyingPartyService) -> Responder
    }

    /// The sites made for one service of a tenant so far.
    private struct Sites {
        let service: RelyingPartyService
        var main: Responder?
        var admin: Responder?

        func responder(_ listener: Listener) -> Responder? { listener == .main ? main : admin }
    }

    private let relyingParties: RelyingParties
    /// The default tenant's sites, which also answer the requests no tenant takes.
    private let defaultMain: Responder
    private let defaultAdmin: Responder
    private let kept: Mutex<[TenantID: Sites]>
    private let makers: Makers
    private let logger: Logger
    /// The console's host when the console is on the main listener (no `adminAddress`): that host serves the console
    /// only, and no other host serves it, so no page of a site shares an operator's cookies.
    private let consoleHost: String?

    /// The default tenant's sites are `defaultMain` (with `/metrics`) and `defaultAdmin` (with `/admin/v1/tenants`);
    /// every other tenant's are made by `makers` on first use.
    init(relyingParties: RelyingParties, defaultMain: Responder, defaultAdmin: Responder, makers: Makers, logger: Logger) {
        self.relyingParties = relyingParties
        (self.defaultMain, self.defaultAdmin) = (defaultMain, defaultAdmin)
        kept = Mutex([.default: Sites(service: relyingParties.shared, main: defaultMain, admin: defaultAdmin)])
        self.makers = makers
        self.logger = logger
        let configuration = relyingParties.shared.configuration
        consoleHost = configuration.adminAddress == nil ? configuration.consoleHost : nil
    }

    /// Where a request on the main listener goes when the console shares it: the console's host serves the console
    /// (and the server's own endpoints), every other host everything but the console.
    private enum ConsoleSide {
        case console, site
        case refused(String)
    }

    private func consoleSide(host: String?, path: String) -> ConsoleSide {
        guard let consoleHost else { return .site }
        let isTenantConsolePath = Self.isTenantConsolePath(path)
        let isConsolePath = path == "/console" || path.hasPrefix("/console/") || isTenantConsolePath
        guard TenantRouting.hostName(host ?? "") == consoleHost else {
            return isConsolePath ? .refused("the console is served at its own origin only, not on this host") : .site
        }
        // Another tenant's console API: routed by its path prefix to that tenant's site, which serves it.
        if isTenantConsolePath { return .site }
        if isConsolePath || Self.serverPaths.contains(path) { return .console }
        return .refused("the console's origin serves the console only, at /console/")
    }

    /// Whether `path` is `/t/{tenant}/console/...`: the console's API for a tenant its picker chose.
    private static func isTenantConsolePath(_ path: String) -> Bool {
        guard path.hasPrefix("/t/") else { return false }
        let rest = path.dropFirst(3)
        guard let slash = rest.firstIndex(of: "/") else { return false }
        return rest[slash...].hasPrefix("/console/")
    }

    /// The rate limit's decision, before the body, of the site of the tenant `head` is for; nil when that site is not
    /// made yet (its limits are checked with the whole request, as before).
    func rateLimitDecision(_ head: HTTPRequestHead, listener: Listener, peer: SocketAddress?) -> TokenBuckets.Decision? {
        // Only a POST is limited: no other request pays for the look-ups below.
        guard head.method == .POST else { return nil }
        let path = RequestURI(head.uri).path
        if listener == .main, case .refused = consoleSide(host: head.headers[.hostField], path: path) { return nil }
        guard case .tenant(let id, let rest) = relyingParties.directory.routing.choose(host: head.headers[.hostField], path: path),
              let responder = kept.withLock({ $0[id]?.responder(listener) })
        else { return nil }
        var routed = head
        routed.uri = String(rest)
        return responder.rateLimitDecision(routed, peer: peer)
    }

    /// Gives the request its tenant and has that tenant's site for `listener` answer it.
    func respond(to request: Request, listener: Listener, peer: SocketAddress?, on eventLoop: any EventLoop) -> ResponseOutcome {
        let host = request.headers[.hostField]
        var choice = relyingParties.directory.routing.choose(host: host, path: request.uri.path)
        if listener == .main {
            switch consoleSide(host: host, path: request.uri.path) {
            case .site: break
            case .console: choice = .tenant(.default, path: Substring(request.uri.path))
            case .refused(let message): return refuse(request, listener, peer, APIError(.notFound, message))
            }
        }
        let id: TenantID, path: Substring
        switch choice {
        case .tenant(let chosen, let rest):
            (id, path) = (chosen, rest)
        case .unknownTenant(let name):
            return refuse(request, listener, peer, APIError(.notFound, "there is no tenant \"\(name.prefix(63))\""))
        case .unknownHost(let name):
            // The server's own endpoints answer whatever the host: load balancers probe by address. So does the
            // admin listener, which backends call by address or an internal name (admin keys are per tenant).
            guard listener == .admin || Self.serverPaths.contains(request.uri.path) else {
                return refuse(request, listener, peer, APIError(
                    .misdirectedRequest,
                    "no tenant serves the host \"\(name.prefix(100))\"; a tenant lists its hosts, or name it in the path: /t/{tenant}/"))
            }
            (id, path) = (.default, Substring(request.uri.path))
        }
        let routed = path.utf8.count == request.uri.path.utf8.count ? request : request.routed(to: path)
        do {
            return try site(of: id, listener).respond(to: routed, peer: peer, on: eventLoop)
        } catch {
            return refuse(request, listener, peer, error)
        }
    }

    /// The site of tenant `id` for `listener`: the one kept for its current service, or one made now and kept.
    private func site(of id: TenantID, _ listener: Listener) throws(APIError) -> Responder {
        let service: RelyingPartyService
        do throws(RelyingParties.Refusal) {
            service = try relyingParties.service(for: id, logger: logger)
        } catch {
            switch error {
            case .unknownTenant:
                throw APIError(.notFound, "there is no tenant \"\(id)\"")
            case .unservable(_, let reason):
                throw APIError(.serviceUnavailable, "tenant \(id) cannot be served: \(reason)")
            }
        }
        if let known = kept.withLock({ $0[id] }), known.service === service, let responder = known.responder(listener) { return responder }
        let made: Responder
        do {
            made = listener == .main ? try makers.main(service) : makers.admin(service)
        } catch {
            logger.error("a tenant's site could not be made", metadata: ["tenant": "\(id)", "error": "\(error)"])
            throw APIError(.serviceUnavailable, "tenant \(id) cannot be served: its site could not be made (the log says why)")
        }
        return kept.withLock { kept in
            var sites = kept[id].flatMap { $0.service === service ? $0 : nil } ?? Sites(service: service)
            // Of two made at once, the first kept.
            let responder = sites.responder(listener) ?? made
            if listener == .main { sites.main = responder } else { sites.admin = responder }
            kept[id] = sites
            if kept.count > relyingParties.capacity + 1 {
                kept = kept.filter { $0.key == .default || relyingParties.isCurrent($0.value.service) }
            }
            return responder
        }
    }

    /// The refusal of a request no tenant's site answers, through the default tenant's site for `listener`.
    private func refuse(_ request: Request, _ listener: Listener, _ peer: SocketAddress?, _ error: any Error) -> ResponseOutcome {
        .ready((listener == .main ? defaultMain : defaultAdmin).refuse(request, peer: peer, with: error))
    }

    /// How many tenants other than the default have sites kept now.
    var keptTenants: Int { kept.withLock { $0.count - 1 } }

    /// The paths of the server rather than of a tenant, which the default tenant's site answers for any host.
    static let serverPaths: Set<String> = ["/healthz", "/readyz", "/metrics"]
}

extension Request {
    /// The request as a tenant's routes see it: the same, at `path` (the `/t/{tenant}` prefix taken off).
    func routed(to path: Substring) -> Request {
        var head = head
        head.uri = String(path) + (uri.query.map { "?" + $0 } ?? "")
        return Request(head: head, body: body, bodyIsOverLimit: bodyIsOverLimit)
    }
}
