import Hummingbird
import LatchkeyService
import LatchkeyStore
import NIOCore

/// The request context of every Latchkey route: Hummingbird's core storage plus who is signed in.
/// ``SessionAuthenticator`` sets ``identity`` once, on the routes that need it.
public struct LatchkeyRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The signed-in user and their session, when the request carried a live session token.
    public var identity: SessionWithUser?
    /// The peer that sent the request (the proxy, behind one), when known.
    private let peer: SocketAddress?
    /// The peer's IP address as text; formatted only when asked for.
    public var peerAddress: String? { peer?.ipAddress }
    /// The ID this request's log lines and reply carry (``RequestIDMiddleware``).
    public var requestID: String?
    /// Whom the request counts against for rate limits and challenge caps (``ClientAddressMiddleware``).
    var clientAddress = ClientAddress.unknown
    /// The name of the admin key the request was made with (``AdminKeyAuthenticator``).
    var adminKeyName: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        peer = source.channel.remoteAddress
    }

    /// Bodies are read by ``WireDecoder``: JSON only, bounded, errors that name the member.
    public var requestDecoder: WireDecoder { WireDecoder() }
}
