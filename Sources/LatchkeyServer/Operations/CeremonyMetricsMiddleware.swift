import Hummingbird
import LatchkeyService

/// Counts each ceremony step by outcome (`latchkey_ceremonies_total`): `ok`, or what refused it.
/// Sits inside ``ErrorStatusMiddleware``, so it sees the core's own error before it becomes an HTTP reply.
struct CeremonyMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: LatchkeyMetrics

    private static func ceremony(_ endpoint: String?) -> LatchkeyMetrics.Ceremony? {
        switch endpoint {
        case "/attestation/options": .registrationOptions
        case "/attestation/result": .registrationResult
        case "/assertion/options": .signInOptions
        case "/assertion/result": .signInResult
        default: nil
        }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post, let ceremony = Self.ceremony(context.endpointPath) else {
            return try await next(request, context)
        }
        do {
            let response = try await next(request, context)
            metrics.recordCeremony(ceremony, outcome: LatchkeyMetrics.outcome(status: response.status))
            return response
        } catch {
            metrics.recordCeremony(ceremony, outcome: LatchkeyMetrics.outcome(of: error))
            throw error
        }
    }
}
