import Foundation
import Hummingbird
import LatchkeyService
import LatchkeyStore
import WebAuthn

/// `/app-attest`: challenges, key attestation and assertions of Apple's App Attest
/// (`DCAppAttestService`), served when `appAttest` is not `off`. See ``AppAttestKeys``.
struct AppAttestController: Sendable {
    let services: LatchkeyServices

    func addRoutes(to group: RouterGroup<LatchkeyRequestContext>) {
        group.post("challenge", use: challenge)
        group.post("keys", use: attest)
        group.post("assertions", use: assert)
    }

    @Sendable func challenge(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let issued = try await services.challenges.issue(
            .appAttest, for: request, userHandle: nil, username: nil, displayName: nil, userVerification: .discouraged, client: context.clientAddress)
        return issued.response(AppAttestChallengeReply(challenge: Base64URLBytes(issued.challenge), timeout: services.timeoutMilliseconds))
    }

    @Sendable func attest(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let body = try await request.decode(as: AppAttestKeyRequest.self, context: context)
        let key = try await services.appAttest.attest(
            keyID: body.keyId.bytes, attestationObject: body.attestationObject.bytes, challenge: body.challenge.bytes, request: request)
        context.logger.info("App Attest key attested", metadata: [
            "appAttestKey": "\(LatchkeyServices.logID(key.keyID))", "app": "\(key.appID)", "environment": "\(key.environment)",
        ])
        var response = JSONResponse.make(
            AppAttestKeyReply(keyId: Base64URLBytes(key.keyID), appId: key.appID, environment: key.environment), status: .created)
        response.setCookie(services.challenges.clearingCookie(.appAttest))
        return response
    }

    @Sendable func assert(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let body = try await request.decode(as: AppAttestAssertionRequest.self, context: context)
        let (key, counter) = try await services.appAttest.verify(
            keyID: body.keyId.bytes, assertion: body.assertion.bytes, clientData: body.clientData.bytes, request: request)
        var response = JSONResponse.make(AppAttestAssertionReply(keyId: Base64URLBytes(key.keyID), appId: key.appID, counter: counter))
        response.setCookie(services.challenges.clearingCookie(.appAttest))
        return response
    }
}
