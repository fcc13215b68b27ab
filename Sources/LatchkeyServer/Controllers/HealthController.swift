import Hummingbird
import LatchkeyStore
import Logging

/// `GET /healthz` (the process answers) and `GET /readyz` (and its store answers too), for load
/// balancers and orchestrators. Neither needs a session nor touches user data.
struct HealthController: Sendable {
    let store: any LatchkeyStore

    func addRoutes(to router: Router<LatchkeyRequestContext>) {
        router.get("healthz") { _, _ in JSONResponse.ok() }
        router.get("readyz", use: ready)
    }

    @Sendable func ready(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        do {
            try await store.checkReachable()
            return JSONResponse.ok()
        } catch {
            // The details (which may name a host) go to the log; the reply says only what failed.
            context.logger.error("readiness check failed: the store does not answer", metadata: ["error": "\(error)"])
            return JSONResponse.failed("the store does not answer", status: .serviceUnavailable)
        }
    }
}
