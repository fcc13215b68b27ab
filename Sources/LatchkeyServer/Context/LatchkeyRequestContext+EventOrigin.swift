import Hummingbird
import LatchkeyStore
import LatchkeyService

extension LatchkeyRequestContext {
    /// This request as the origin of a change: the user's own, or the admin key's on admin routes.
    func eventOrigin(_ request: Request) -> EventOrigin {
        EventOrigin(
            clientAddress: clientAddress == .unknown ? peerAddress : clientAddress.key,
            userAgent: request.headers[.userAgent], requestID: requestID,
            actor: adminKeyName.map(SecurityEventActor.admin) ?? .user)
    }
}
