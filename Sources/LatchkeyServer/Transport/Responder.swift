import HTTPTypes
import LatchkeyService
import Metrics
import Logging
import NIOCore
import NIOHTTP1

/// What a request gets: a reply made on the event loop, or one a route's task is still making.
enum ResponseOutcome {
    case ready(Response)
    case pending(EventLoopFuture<Response>)
}

/// Answers one listener's requests: the steps every request takes around its route, in this order.
/// 1. Its ID, whom it counts against, and (with metrics on) the gauge of requests in progress.
/// 2. The route its path matches (its template names it in logs and metrics).
/// 3. A CORS preflight from an allowed origin, or to the OpenID provider's public endpoints, is answered here.
/// 4. The guards: cross-site requests, the rate limit, paths no file could have.
/// 5. The route: one that cannot suspend runs here on the event loop, one that may in one task (the only
///    hop of the request). A wrong method on a known path is a 405 with `Allow`, OPTIONS a 204 with it, HEAD
///    runs GET's route; a path no route has is a file of the page, or a 404.
/// 6. On the reply, errors included: the JSON failure body (and an info line) for a refusal, CORS, the
///    security headers, the request ID, and the request metrics.
struct Responder: Sendable {
    let table: RouteTable
    /// The page's files, on the main listener.
    var files: StaticFiles?
    /// Request IDs, when operations features are on.
    var requestIDs: RequestIDs?
    let clientAddresses: ClientAddress.Resolver
    /// Request and ceremony metrics, when operations features are on.
    var requestMetrics: RequestMetrics?
    var ceremonyMetrics: CeremonyMetrics?
    let securityHeaders: SecurityHeaders
    var cors: OriginCORS?
    var crossSiteGuard: CrossSiteRequestGuard?
    var rateLimit: RateLimit?
    let errors: ErrorStatus
    let logger: Logger

    /// The rate limit's decision for the request `head` announces (``RateLimit/decide(_:route:client:)``), made
    /// before its body is read; nil when its route is not limited.
    func rateLimitDecision(_ head: HTTPRequestHead, peer: SocketAddress?) -> TokenBuckets.Decision? {
        guard let rateLimit, head.method == .POST else { return nil }
        let route = table.match(RequestURI(head.uri).path)?.routes.template
        let client = clientAddresses.client(peer: peer?.ipAddress, forwardedFor: head.headers[values: .forwardedFor])
        return rateLimit.decide(head.method, route: route, client: client)
    }

    func respond(to request: Request, peer: SocketAddress?, on eventLoop: any EventLoop) -> ResponseOutcome {
        let start = ContinuousClock.now
        let match = table.match(request.uri.path)
        let context = context(for: request, peer: peer, match: match)
        let active = requestMetrics?.activeRequests(request.method)
        active?.increment()

        let work: RouteWork
        do {
            if let preflight = ProviderCORS.preflight(request) ?? cors?.preflight(request) {
                return .ready(finish(.success(preflight), request, context, start, active))
            }
            try crossSiteGuard?.check(request)
            try rateLimit?.check(request, context: context)
            try StaticFilePathGuard.check(request.uri.path)
            guard let routeWork = try route(request, match?.routes) else {
                return .ready(finish(.success(try answerWithoutRoute(request, match?.routes)), request, context, start, active))
            }
            work = routeWork
        } catch {
            return .ready(finish(.failure(error), request, context, start, active))
        }
        return run(work, request, context, start, active, on: eventLoop)
    }

    /// The refusal of a request that reached no route of this site (no tenant takes it), with the steps of every
    /// reply: its request ID, the info line, the security headers and the request metrics.
    func refuse(_ request: Request, peer: SocketAddress?, with error: any Error) -> Response {
        let context = context(for: request, peer: peer, match: nil)
        return finish(.failure(error), request, context, ContinuousClock.now, nil)
    }

    /// The request's context: its request ID (and the logger that carries it), client address, route and parameters.
    private func context(
        for request: Request, peer: SocketAddress?, match: (routes: RouteTable.PathRoutes, parameters: Parameters)?
    ) -> LatchkeyRequestContext {
        var context = LatchkeyRequestContext(logger: logger, peer: peer)
        if let requestIDs {
            let id = requestIDs.id(for: request, peerAddress: context.peerAddress)
            context.requestID = id
            context.logger[metadataKey: "requestID"] = .string(id)
        }
        context.clientAddress = clientAddresses.client(peer: context.peerAddress, forwardedFor: request.headers[values: .forwardedFor])
        context.endpointPath = match?.routes.template
        context.parameters = match?.parameters ?? Parameters()
        return context
    }

    /// Runs the route's handler: on the event loop when it cannot suspend, in one task when it can.
    private func run(
        _ work: RouteWork, _ request: Request, _ context: LatchkeyRequestContext, _ start: ContinuousClock.Instant, _ active: Meter?,
        on eventLoop: any EventLoop
    ) -> ResponseOutcome {
        let ceremony = ceremonyMetrics.flatMap { _ in CeremonyMetrics.ceremony(request, route: context.endpointPath) }
        switch work {
        case .immediate(let handler):
            let result = Result { try handler(request, context) }
            if let ceremony { ceremonyMetrics?.record(ceremony, result) }
            return .ready(finish(result, request, context, start, active))
        case .suspending(let handler):
            let promise = eventLoop.makePromise(of: Response.self)
            promise.completeWithTask { [context] in
                let result: Result<Response, any Error>
                do { result = .success(try await handler(request, context)) } catch { result = .failure(error) }
                if let ceremony { ceremonyMetrics?.record(ceremony, result) }
                return finish(result, request, context, start, active)
            }
            return .pending(promise.futureResult)
        }
    }

    /// The route's work for the request's method (GET's for HEAD); nil when the path has no route or none for
    /// this method. A body over the limit is refused here, for every route.
    private func route(_ request: Request, _ routes: RouteTable.PathRoutes?) throws(APIError) -> RouteWork? {
        guard let work = routes?.work(for: request.method) else { return nil }
        if request.bodyIsOverLimit {
            // The rest of the body is not worth reading: the connection closes after the reply.
            throw APIError(
                .payloadTooLarge, "request body is larger than \(HTTPLimits.maximumBodyBytes / 1024) KiB", headers: [.connection: "close"])
        }
        return work
    }

    /// The reply when no route takes the request: OPTIONS or a wrong method on a known path, a file of the page,
    /// or nothing here.
    private func answerWithoutRoute(_ request: Request, _ routes: RouteTable.PathRoutes?) throws(APIError) -> Response {
        if let routes {
            guard request.method == .OPTIONS else {
                throw APIError(.methodNotAllowed, routes.wrongMethodMessage, headers: [.allow: routes.allow])
            }
            if request.headers[.accessControlRequestMethod] != nil {
                // A preflight ``OriginCORS`` did not answer: from an origin it does not allow, or to the admin API.
                if request.uri.path.hasPrefix(OriginCORS.uncoveredPathPrefix) {
                    throw APIError(.forbidden, "the admin API answers no CORS preflight: backends call it, not pages")
                }
                let origin = request.headers[.origin] ?? "none"
                throw APIError(.forbidden, "origin \(origin.debugDescription) may not call this API from its pages (see corsOrigins)")
            }
            return Response(status: .noContent, headers: [HTTPField.Name.allow.rawName: routes.allow])
        }
        if let files, let file = files.file(at: request.uri.path) {
            switch request.method {
            case .GET, .HEAD: return StaticFiles.reply(file, to: request)
            case .OPTIONS: break
            default:
                throw APIError(
                    .methodNotAllowed, "\(request.uri.path) is a file of the page: it takes GET or HEAD", headers: [.allow: "GET, HEAD"])
            }
        }
        throw APIError(.notFound, "no such endpoint: \(request.method.rawValue) \(LatchkeyRequestContext.shortened(request.uri.path))")
    }

    /// The reply as it leaves: a refusal rendered (and logged at info), then CORS, the security headers, the
    /// request ID and the request metrics.
    private func finish(
        _ result: Result<Response, any Error>, _ request: Request, _ context: LatchkeyRequestContext, _ start: ContinuousClock.Instant,
        _ active: Meter?
    ) -> Response {
        var response: Response
        switch result {
        case .success(let reply):
            response = reply
        case .failure(let error):
            let route = context.loggedRoute(of: request)
            let refusal = errors.refusal(for: error, route: route, logger: context.logger)
            context.logger.info("request refused", metadata: [
                "method": "\(request.method.rawValue)", "route": "\(route)", "status": "\(refusal.status.code)",
                "errorMessage": .quoted(refusal.message),
            ])
            response = refusal.response
        }
        if ProviderCORS.covers(request) {
            ProviderCORS.decorate(&response, for: request)
        } else {
            cors?.decorate(&response, for: request)
        }
        securityHeaders.apply(to: &response.headers)
        if let id = context.requestID { response.headers[RequestIDs.header] = id }
        requestMetrics?.record(route: context.endpointPath, method: request.method, status: response.status, since: start)
        active?.decrement()
        return response
    }
}

extension HTTPField.Name {
    static let forwardedFor = HTTPField.Name(known: "X-Forwarded-For")
}
