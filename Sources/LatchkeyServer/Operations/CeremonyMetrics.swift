import LatchkeyService
import LatchkeyStore
import NIOHTTP1

/// Counts each ceremony step of one tenant by outcome (`latchkey_ceremonies_total`): `ok`, or what refused it. It
/// sees the route's own error, before it becomes an HTTP reply.
struct CeremonyMetrics: Sendable {
    let metrics: LatchkeyMetrics
    var tenant: TenantID = .default

    /// The ceremony step `request` to `route` is, if it is one.
    static func ceremony(_ request: Request, route: String?) -> LatchkeyMetrics.Ceremony? {
        guard request.method == .POST else { return nil }
        return switch route {
        case "/attestation/options": .registrationOptions
        case "/attestation/result": .registrationResult
        case "/assertion/options": .signInOptions
        case "/assertion/result": .signInResult
        default: nil
        }
    }

    func record(_ ceremony: LatchkeyMetrics.Ceremony, _ result: Result<Response, any Error>) {
        switch result {
        case .success(let response): metrics.recordCeremony(ceremony, outcome: LatchkeyMetrics.outcome(status: response.status), tenant: tenant)
        case .failure(let error): metrics.recordCeremony(ceremony, outcome: LatchkeyMetrics.outcome(of: error), tenant: tenant)
        }
    }
}
