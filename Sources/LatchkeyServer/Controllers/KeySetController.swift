import Foundation
import LatchkeyService
import NIOCore

/// `GET /.well-known/jwks.json`: the public keys (RFC 7517) that verify the sign-in tokens
/// (`idToken`) still live, read from the store on every request so that a rotated-in key is
/// published before any instance signs with it.
struct KeySetController: Sendable {
    let tokens: SignInTokens

    /// A verifier may keep the set this long; it should fetch it again on meeting an unknown `kid`.
    static let cacheControl = "public, max-age=60"

    func addRoutes(to group: RouteGroup) {
        group.get("jwks.json") { [tokens] _, _ in
            var response = JSONResponse.make(try await tokens.keySet())
            response.headers[.cacheControl] = Self.cacheControl
            return response
        }
    }
}
