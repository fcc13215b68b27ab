import LatchkeyConfiguration
import LatchkeyService
import LatchkeyStore
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// The tenants a server serves, and the sites of each: every request is first given its tenant (``TenantRouting``:
/// the `/t/{tenant}/` path prefix, else its host), then answered by that tenant's site exactly as a single-tenant
/// server's would answer it. A tenant's service and sites are made on its first request and kept until the tenant
/// changes, or until ``capacity`` others were used since (the one used longest ago makes way), so 10,000 tenants
/// cost their settings only while they are used; the choice is two dictionary look-ups under one lock, whatever the
/// number of tenants. A tenant whose settings no longer read is refused, and logged, once per record, not per request.
final class TenantSites: Sendable {
    /// Which listener's site a request is for.
    enum Listener: Sendable { case main, admin }

    /// One tenant's service and the sites made for it so far.
    private struct Entry {
        /// What the tenant was read from (nil for the default tenant).
        let record: TenantRecord?
        let service: RelyingPartyService
        var main: Responder?
        var admin: Responder?
        /// When it was last used, in ``State/uses``.
        var lastUsed: UInt64 = 0
    }

    private struct State {
        var directory: TenantDirectory
        var entries: [TenantID: Entry]
        /// Requests given a kept site so far: the clock of ``Entry/lastUsed``.
        var uses: UInt64 = 0
        /// The tenants whose record cannot be served, and why: refused without reading the record again.
        var unservable: [TenantID: (record: TenantRecord?, reason: String)] = [:]
    }

    /// The most tenants other than the default whose services and sites are kept at once.
    let capacity: Int

    /// What a tenant's service and sites are made with.
    struct Makers: Sendable {
        let service: @Sendable (Tenant) -> RelyingPartyService
        let main: @Sendable (RelyingPartyService) throws -> Responder
        let admin: @Sendable (RelyingPartyService) -> Responder
    }

    private let state: Mutex<State>
    private let makers: Makers
    private let logger: Logger
    private let securityHeaders: SecurityHeaders
    /// The console's host when the console is on the main listener (no `adminAddress`): that host serves the console
    /// only, and no other host serves it, so no page of a site shares an operator's cookies.
    private let consoleHost: String?

    /// The default tenant's service is `defaultService` (the one background work shares) and its sites `defaultMain`
    /// (with `/metrics`) and `defaultAdmin` (with `/admin/v1/tenants`); every other tenant's are made by `makers` on
    /// first use.
    init(
        directory: TenantDirectory, defaultService: RelyingPartyService, defaultMain: Responder, defaultAdmin: Responder, makers: Makers,
        capacity: Int = 1_000, logger: Logger
    ) {
        let entries: [TenantID: Entry] = [.default: Entry(record: nil, service: defaultService, main: defaultMain, admin: defaultAdmin)]
        state = Mutex(State(directory: directory, entries: entries))
        self.capacity = max(capacity, 1)
        self.makers = makers
        self.logger = logger
        securityHeaders = SecurityHeaders(strictTransportSecurity: defaultService.configuration.usesHTTPS)
        let configuration = defaultService.configuration
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
        let isConsolePath = path == "/console" || path.hasPrefix("/console/")
        guard TenantRouting.hostName(host ?? "") == consoleHost else {
            return isConsolePath ? .refused("the console is served at its own origin only, not on this host") : .site
        }
        if isConsolePath || Self.serverPaths.contains(path) { return .console }
        return .refused("the console's origin serves the console only, at /console/")
    }

    /// The directory being served.
    var directory: TenantDirectory { state.withLock { $0.directory } }

    /// Serves `directory` from now on: a tenant whose stored record changed (or that is gone) gets a new service
    /// and sites on its next request; the others keep theirs.
    func update(to directory: TenantDirectory) {
        state.withLock { state in
            // Two refreshes racing: the older directory never replaces the newer.
            guard directory.revision > state.directory.revision else { return }
            state.entries = state.entries.filter { id, entry in
                id == .default || directory.records[id] == entry.record
            }
            state.unservable = state.unservable.filter { id, unservable in directory.records[id] == unservable.record }
            state.directory = directory
        }
    }

    /// The rate limit's decision, before the body, of the site of the tenant `head` is for; nil when that site is not
    /// made yet (its limits are checked with the whole request, as before).
    func rateLimitDecision(_ head: HTTPRequestHead, listener: Listener, peer: SocketAddress?) -> TokenBuckets.Decision? {
        // Only a POST is limited: no other request pays for the look-ups below.
        guard head.method == .POST else { return nil }
        let path = RequestURI(head.uri).path
        if listener == .main, case .refused = consoleSide(host: head.headers[.hostField], path: path) { return nil }
        let chosen: (Responder?, Substring)? = state.withLock { state in
            switch state.directory.routing.choose(host: head.headers[.hostField], path: path) {
            case .tenant(let id, let rest):
                let entry = state.entries[id]
                return (listener == .main ? entry?.main : entry?.admin, rest)
            case .unknownTenant, .unknownHost:
                return nil
            }
        }
        guard let (responder, rest) = chosen, let responder else { return nil }
        var routed = head
        routed.uri = String(rest)
        return responder.rateLimitDecision(routed, peer: peer)
    }

    /// Gives the request its tenant and has that tenant's site for `listener` answer it.
    func respond(to request: Request, listener: Listener, peer: SocketAddress?, on eventLoop: any EventLoop) -> ResponseOutcome {
        let host = request.headers[.hostField]
        var toConsole = false
        if listener == .main {
            switch consoleSide(host: host, path: request.uri.path) {
            case .site: break
            case .console: toConsole = true
            case .refused(let message): return .ready(reply(.elsewhere(message)))
            }
        }
        let found = state.withLock { state -> Result<(Responder?, TenantID, Substring), Refusal> in
            let id: TenantID, path: Substring
            switch toConsole ? .tenant(.default, path: Substring(request.uri.path)) : state.directory.routing.choose(host: host, path: request.uri.path) {
            case .tenant(let chosen, let rest):
                guard chosen == .default || state.directory.records[chosen] != nil else { return .failure(.unknownTenant(chosen.rawValue)) }
                (id, path) = (chosen, rest)
            case .unknownTenant(let name):
                return .failure(.unknownTenant(name))
            case .unknownHost(let name):
                // The server's own endpoints answer whatever the host: load balancers probe by address. So does the
                // admin listener, which backends call by address or an internal name (admin keys are per tenant).
                guard listener == .admin || Self.serverPaths.contains(request.uri.path) else { return .failure(.unknownHost(name)) }
                (id, path) = (.default, Substring(request.uri.path))
            }
            if let unservable = state.unservable[id] { return .failure(.unavailable(id.rawValue, because: unservable.reason)) }
            if id != .default, state.entries[id] != nil {
                state.uses &+= 1
                state.entries[id]?.lastUsed = state.uses
            }
            let entry = state.entries[id]
            return .success((listener == .main ? entry?.main : entry?.admin, id, path))
        }
        switch found {
        case .failure(let refusal):
            return .ready(reply(refusal))
        case .success(let (known, id, path)):
            let routed = path.utf8.count == request.uri.path.utf8.count ? request : request.routed(to: path)
            do {
                let responder = try known ?? site(for: id, listener: listener)
                return responder.respond(to: routed, peer: peer, on: eventLoop)
            } catch {
                return .ready(reply(refusal(of: id, because: error)))
            }
        }
    }

    /// Why `id`'s site could not be made, logged (a tenant whose settings no longer read: once per record, and
    /// remembered, so that its later requests are refused without reading them again).
    private func refusal(of id: TenantID, because error: any Error) -> Refusal {
        switch error {
        case let error as ConfigurationError:
            let reason = "its settings are no longer valid (GET /admin/v1/tenants/\(id) lists the problems)"
            if remember(id, unservable: reason) {
                logger.error("a tenant's settings no longer read over the server's configuration; it is refused until they change", metadata: [
                    "tenant": "\(id)", "problems": "\(error.problems.joined(separator: "; "))",
                ])
            }
            return .unavailable(id.rawValue, because: reason)
        case is TenantGone:
            return .unknownTenant(id.rawValue)
        default:
            logger.error("a tenant's site could not be made", metadata: ["tenant": "\(id)", "error": "\(error)"])
            return .unavailable(id.rawValue, because: "its site could not be made (the log says why)")
        }
    }

    /// The tenant's site for `listener`, made now (outside the lock; the tenant's settings read on its first
    /// request) and kept; of two made at once, the first kept.
    private func site(for id: TenantID, listener: Listener) throws -> Responder {
        let (directory, known) = state.withLock { ($0.directory, $0.entries[id]) }
        let record = directory.records[id]
        var service: RelyingPartyService
        if let known, known.record == record {
            service = known.service
        } else {
            guard let tenant = try directory.tenant(id) else { throw TenantGone() }
            service = makers.service(tenant)
            // One service per tenant: of two made at once, the first kept is the one both sites use.
            service = state.withLock { state in
                guard state.directory.records[id] == record else { return service }
                if let entry = state.entries[id], entry.record == record { return entry.service }
                state.uses &+= 1
                state.entries[id] = Entry(record: record, service: service, lastUsed: state.uses)
                evictBeyondCapacity(&state)
                return service
            }
        }
        let made = listener == .main ? try makers.main(service) : makers.admin(service)
        return state.withLock { state in
            // Changed meanwhile: serve this request with what was made, keep nothing.
            guard state.directory.records[id] == record, var entry = state.entries[id], entry.service === service else { return made }
            switch listener {
            case .main:
                if entry.main == nil { entry.main = made }
                state.entries[id] = entry
                return entry.main ?? made
            case .admin:
                if entry.admin == nil { entry.admin = made }
                state.entries[id] = entry
                return entry.admin ?? made
            }
        }
    }

    /// Forgets the services and sites of the tenant used longest ago while more than ``capacity`` are kept (one
    /// scan of the kept tenants, only when a tenant's service is made). Its requests in flight finish with them; its
    /// next request makes new ones (its limits are kept: ``ClientLimits``).
    private func evictBeyondCapacity(_ state: inout State) {
        while state.entries.count - 1 > capacity {
            let stalest = state.entries.lazy.filter { $0.key != .default }.min { $0.value.lastUsed < $1.value.lastUsed }
            guard let stalest else { return }
            state.entries[stalest.key] = nil
        }
    }

    /// Remembers that `id`'s current record cannot be served, for `reason`; false when it was remembered already.
    private func remember(_ id: TenantID, unservable reason: String) -> Bool {
        state.withLock { state in
            let record = state.directory.records[id]
            if let known = state.unservable[id], known.record == record { return false }
            state.unservable[id] = (record, reason)
            return true
        }
    }

    /// How many tenants other than the default have their services kept now.
    var keptTenants: Int { state.withLock { $0.entries.count - 1 } }

    /// The paths of the server rather than of a tenant, which the default tenant's site answers for any host.
    static let serverPaths: Set<String> = ["/healthz", "/readyz", "/metrics"]

    /// The tenant went between the choice and the making of its site.
    private struct TenantGone: Error {}

    /// Why a request has no tenant to answer it.
    private enum Refusal: Error {
        case unknownHost(String)
        case unknownTenant(String)
        case unavailable(String, because: String)
        /// A path this host does not serve (the console's, or the site's on the console's host).
        case elsewhere(String)
    }

    private func reply(_ refusal: Refusal) -> Response {
        var response = switch refusal {
        case .unknownHost(let host):
            JSONResponse.failed(
                "no tenant serves the host \"\(host.prefix(100))\"; a tenant lists its hosts, or name it in the path: /t/{tenant}/",
                status: .misdirectedRequest)
        case .unknownTenant(let name):
            JSONResponse.failed("there is no tenant \"\(name.prefix(63))\"", status: .notFound)
        case .unavailable(let name, let reason):
            JSONResponse.failed("tenant \(name) cannot be served: \(reason)", status: .serviceUnavailable)
        case .elsewhere(let message):
            JSONResponse.failed(message, status: .notFound)
        }
        securityHeaders.apply(to: &response.headers)
        return response
    }
}

extension Request {
    /// The request as a tenant's routes see it: the same, at `path` (the `/t/{tenant}` prefix taken off).
    func routed(to path: Substring) -> Request {
        var head = head
        head.uri = String(path) + (uri.query.map { "?" + $0 } ?? "")
        return Request(head: head, body: body, bodyIsOverLimit: bodyIsOverLimit)
    }
}
