import LatchkeyService
import LatchkeyStore
import Logging

/// `GET /healthz` (the process answers) and `GET /readyz` (and its store answers too), for load
/// balancers and orchestrators. Neither needs a session nor touches user data.
struct HealthController: Sendable {
    let health: StoreHealth

    func addRoutes(to router: Router) {
        router.get("healthz", immediately: { _, _ in JSONResponse.ok() })
        router.get("readyz", use: ready)
    }

    @Sendable func ready(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        // The details (which may name a host) go to the log; the reply says only what failed.
        let verdict = await health.check(logger: context.logger)
        return verdict.writable ? JSONResponse.ok() : JSONResponse.failed(verdict.reason, status: .serviceUnavailable)
    }
}
