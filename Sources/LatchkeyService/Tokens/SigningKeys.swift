import Foundation
import LatchkeyConfiguration
import LatchkeyStore

/// The token signing keys as the command line and start-up handle them.
package enum SigningKeys {
    /// Makes the first token signing key when the store has none, so that a store that cannot keep
    /// one fails at start-up rather than at the first sign-in.
    package static func prepare(_ store: any LatchkeyStore, configuration: LatchkeyConfiguration) async throws {
        // As requests call it: a SQLite lock another process holds a moment (`latchkey admin-keys create` beside a
        // starting server) is waited for, not a failed start ("database is locked" stopped `serve`).
        try await SignInTokens(
            store: store.applying(StoreCallPolicy(busyRetry: RelyingPartyService.storeDeadline(configuration))),
            issuer: configuration.tokenIssuer, audience: configuration.tokenAudience,
            lifetime: TimeInterval(configuration.tokenLifetime)
        ).prepare()
    }

    /// Adds a token signing key, published in `/.well-known/jwks.json` at once, that every instance
    /// signs with from `activateIn` seconds on (default: five minutes, so verifiers caching the key
    /// set have it first); the previous key stays published until the tokens it signed have expired.
    package static func rotate(_ store: any LatchkeyStore, activateIn: TimeInterval? = nil) async throws -> SigningKeyRecord {
        try await SignInTokens.rotate(store, activateIn: activateIn ?? SignInTokens.defaultActivationDelay)
    }
}
