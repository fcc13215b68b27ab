import LatchkeyService
import LatchkeyStore
import Logging
import NIOCore

/// What the server knows of a request beside the request itself: whom it is from, its ID and logger, the route it
/// matched and that route's parameters, and who is signed in (``SessionAuthenticator`` sets ``identity`` once, on
/// the routes that need it).
public struct LatchkeyRequestContext: Sendable {
    /// The request's logger: its lines carry the request ID.
    public var logger: Logger
    /// The signed-in user and their session, when the request carried a live session token.
    public var identity: SessionWithUser?
    /// The peer that sent the request (the proxy, behind one), when known.
    private let peer: SocketAddress?
    /// The peer's IP address as text; formatted only when asked for.
    public var peerAddress: String? { peer?.ipAddress }
    /// The ID this request's log lines and reply carry (``RequestIDs``).
    public var requestID: String?
    /// Whom the request counts against for rate limits and challenge caps.
    var clientAddress = ClientAddress.unknown
    /// The name of the admin key the request was made with (``AdminKeyAuthenticator``).
    var adminKeyName: String?
    /// The session of the operator signed in to the console who made the request (``OperatorSessionAuthenticator``).
    var operatorSession: SessionWithUser?
    /// The template of the route the request matched (`/credentials/{id}`), nil when none did.
    var endpointPath: String?
    /// The matched route's path parameters, as sent (percent-encoded).
    var parameters = Parameters()

    init(logger: Logger, peer: SocketAddress?) {
        self.logger = logger
        self.peer = peer
    }
}
