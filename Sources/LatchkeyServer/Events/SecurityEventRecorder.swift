import Foundation
import Hummingbird
import LatchkeyStore
import WebAuthn

/// Where a change came from, for its security event: the client, the request and who acted.
struct EventOrigin: Sendable {
    var clientAddress: String?
    var userAgent: String?
    var requestID: String?
    var actor: SecurityEventActor

    /// A change Latchkey or its command line made by itself, outside any request.
    static func system(_ part: String) -> EventOrigin {
        EventOrigin(clientAddress: nil, userAgent: nil, requestID: nil, actor: .system(part))
    }
}

extension LatchkeyRequestContext {
    /// This request as the origin of a change: the user's own, or the admin key's on admin routes.
    func eventOrigin(_ request: Request) -> EventOrigin {
        EventOrigin(
            clientAddress: clientAddress == .unknown ? peerAddress : clientAddress.key,
            userAgent: request.headers[.userAgent], requestID: requestID,
            actor: adminKeyName.map(SecurityEventActor.admin) ?? .user)
    }
}

/// Makes the security events the controllers hand to the store with each change.
struct SecurityEventRecorder: Sendable {
    /// Names passkeys' authenticators in events.
    let names: AuthenticatorNames

    /// A new event with a fresh ID: `type` of `user`'s account (and of `credential`, a passkey, or
    /// `credentialID`, a device key) from `origin`, with `detail` when there is more to say.
    func event(
        _ type: SecurityEventType, _ origin: EventOrigin, user: UserRecord?, credential: CredentialRecord? = nil,
        credentialID: [UInt8]? = nil, detail: String? = nil, at time: Date = Date()
    ) throws -> SecurityEvent {
        SecurityEvent(
            id: try Self.newID(), type: type, occurredAt: time, userHandle: user?.handle, username: user?.username,
            credentialID: credential?.id ?? credentialID, aaguid: credential?.aaguid,
            authenticatorName: credential.map { names.name(aaguid: $0.aaguid) }, clientAddress: origin.clientAddress,
            userAgent: origin.userAgent, requestID: origin.requestID, actor: origin.actor, detail: detail)
    }

    /// The detail of a rename (`passkey.renamed`, `device_key.renamed`): `renamed to "NAME"`, quoted
    /// and escaped as a Swift string literal (the page reads it back), or `name removed`.
    static func renameDetail(_ name: String?) -> String {
        name.map { "renamed to \($0.debugDescription)" } ?? "name removed"
    }

    /// `evt_` and 128 random bits in base64url.
    static func newID() throws -> String {
        "evt_" + Base64URL.encode(try SecureRandom.bytes(count: 16))
    }
}
