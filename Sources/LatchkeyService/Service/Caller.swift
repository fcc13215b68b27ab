import LatchkeyStore
import Logging

/// Who is asking, as the transport saw the request: the signed-in user (when a live session came with it),
/// the session tokens it presented, whom it counts against for limits, where a change it makes comes from,
/// and the logger its lines go to (carrying its request ID).
package struct Caller: Sendable {
    /// The signed-in user and their session, when the request carried a live session token.
    package var identity: SessionWithUser?
    /// The session tokens the request carried, in the order they are tried (a bearer token first).
    package var sessionTokens: [String]
    /// Whom the request counts against for rate limits and challenge caps.
    package var client: ClientAddress
    /// The origin of a change the request makes, for its security event.
    package var origin: EventOrigin
    package var logger: Logger

    package init(identity: SessionWithUser?, sessionTokens: [String], client: ClientAddress, origin: EventOrigin, logger: Logger) {
        self.identity = identity
        self.sessionTokens = sessionTokens
        self.client = client
        self.origin = origin
        self.logger = logger
    }

    /// The signed-in user, or ``ServiceError/notSignedIn``.
    package func signedIn() throws(ServiceError) -> SessionWithUser {
        guard let identity else { throw ServiceError.notSignedIn }
        return identity
    }

    /// The hashes of the session tokens presented, as the store keeps them (the ones that cannot be a token left out).
    package var sessionTokenHashes: [[UInt8]] { Sessions.tokenHashes(of: sessionTokens) }
}
