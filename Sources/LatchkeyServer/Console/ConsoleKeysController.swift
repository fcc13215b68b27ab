import Foundation
import LatchkeyService
import LatchkeyStore

/// The keys, for the console only (the command line manages them for scripts): the token signing keys with their
/// phase and the admin keys, listed; a signing key rotated in; an admin key revoked. Each change is an event with the
/// operator as its actor.
struct ConsoleKeysController: Sendable {
    let routes: ServiceRoutes

    func addRoutes(to group: RouteGroup) {
        group.get("keys", use: keys)
        group.post("signing-keys/rotate", use: rotate)
        group.delete("admin-keys/{name}", use: revoke)
    }

    @Sendable func keys(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let store = routes.service.store
        async let signing = store.signingKeys()
        async let admin = store.adminKeys()
        let lifetime = TimeInterval(routes.service.configuration.tokenLifetime)
        return JSONResponse.make(ConsoleKeysReply(
            signingKeys: SigningKeyState.states(of: try await signing, tokenLifetime: lifetime).map(SigningKeySummary.init),
            adminKeys: try await admin.map(AdminKeySummary.init)))
    }

    /// A new signing key, published now, signing in five minutes (as `latchkey signing-keys rotate`).
    @Sendable func rotate(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let added = try await SignInTokens.rotate(routes.service.store, by: routes.caller(request, context).origin.actor)
        context.logger.notice("signing key rotated in the console", metadata: ["generation": "\(added.generation)"])
        // Published now, signing from its `signsFrom` (five minutes on): waiting.
        return JSONResponse.make(SigningKeyReply(signingKey: SigningKeySummary(SigningKeyState(record: added, phase: .waiting))))
    }

    @Sendable func revoke(_ request: Request, context: LatchkeyRequestContext) async throws -> Response {
        let name = context.parameters.get("name")?.removingPercentEncoding ?? ""
        guard try await AdminKeys.revoke(named: name, in: routes.service.store, by: routes.caller(request, context).origin.actor) else {
            throw APIError(.notFound, "there is no admin key named \(name.debugDescription)")
        }
        context.logger.notice("admin key revoked in the console", metadata: ["adminKey": "\(name)"])
        return JSONResponse.ok()
    }
}

struct SigningKeySummary: Encodable, Sendable {
    var generation: Int
    var keyId: String
    var createdAt: String
    var signsFrom: String
    var state: SigningKeyState.Phase

    init(_ state: SigningKeyState) {
        generation = state.record.generation
        keyId = state.record.keyID
        createdAt = RFC3339.string(state.record.createdAt)
        signsFrom = RFC3339.string(state.record.signsFrom)
        self.state = state.phase
    }
}

/// An admin key as the console lists it: never the key, nor its hash.
struct AdminKeySummary: Encodable, Sendable {
    var name: String
    var createdAt: String
    var lastUsedAt: String?

    init(_ record: AdminKeyRecord) {
        name = record.name
        createdAt = RFC3339.string(record.createdAt)
        lastUsedAt = record.lastUsedAt.map(RFC3339.string)
    }
}

struct ConsoleKeysReply: ReplyBody {
    var signingKeys: [SigningKeySummary]
    var adminKeys: [AdminKeySummary]
}

struct SigningKeyReply: ReplyBody {
    var signingKey: SigningKeySummary
}
