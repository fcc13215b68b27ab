import LatchkeyService
import LatchkeyStore

extension LatchkeyRequestContext {
    /// This request as the origin of a change: the user's own, the admin key's on admin routes, or the operator's on
    /// the console's.
    func eventOrigin(_ request: Request) -> EventOrigin {
        EventOrigin(
            clientAddress: clientAddress == .unknown ? peerAddress : clientAddress.key,
            userAgent: request.headers[.userAgent], requestID: requestID,
            actor: operatorSession.map { SecurityEventActor.operator($0.user.username) } ?? adminKeyName.map(SecurityEventActor.admin) ?? .user)
    }

    /// What log lines name a request by: the matched route template, or for a path no route matched, the path
    /// with each segment longer than 12 characters cut to its first 8, so that a token or credential ID sent in a
    /// path is not logged whole.
    func loggedRoute(of request: Request) -> String {
        endpointPath ?? Self.shortened(request.uri.path)
    }

    /// `path` with every segment longer than 12 characters cut to its first 8 and `…`: a token or key a client
    /// put in a path that matched no route reaches no log line or reply.
    static func shortened(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.count > 12 ? $0.prefix(8) + "…" : $0 }
            .joined(separator: "/")
    }
}
