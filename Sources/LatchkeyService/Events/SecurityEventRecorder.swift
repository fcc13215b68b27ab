import Foundation
import LatchkeyStore
import WebAuthn

/// Where a change came from, for its security event: the client, the request and who acted.
package struct EventOrigin: Sendable {
    package var clientAddress: String?
    package var userAgent: String?
    package var requestID: String?
    package var actor: SecurityEventActor

    package init(clientAddress: String?, userAgent: String?, requestID: String?, actor: SecurityEventActor) {
        self.clientAddress = clientAddress
        self.userAgent = userAgent
        self.requestID = requestID
        self.actor = actor
    }

    /// A change Latchkey or its command line made by itself, outside any request.
    package static func system(_ part: String) -> EventOrigin {
        EventOrigin(clientAddress: nil, userAgent: nil, requestID: nil, actor: .system(part))
    }
}

/// Makes the security events the use cases hand to the store with each change.
package struct SecurityEventRecorder: Sendable {
    /// Names passkeys' authenticators in events.
    package let names: AuthenticatorNames

    package init(names: AuthenticatorNames) {
        self.names = names
    }

    /// A new event with a fresh ID: `type` of `user`'s account (and of `credential`, a passkey, or
    /// `credentialID`, a device key) from `origin`, with `detail` when there is more to say, or the `fact` the
    /// statistics count by.
    package func event(
        _ type: SecurityEventType, _ origin: EventOrigin, user: UserRecord?, credential: CredentialRecord? = nil,
        credentialID: [UInt8]? = nil, fact: SecurityEventFact? = nil, detail: String? = nil, reason: String? = nil, at time: Date = Date()
    ) throws -> SecurityEvent {
        SecurityEvent(
            id: try Self.newID(), type: type, occurredAt: time, userHandle: user?.handle, username: user?.username,
            credentialID: credential?.id ?? credentialID, aaguid: credential?.aaguid,
            authenticatorName: credential.map { names.name(aaguid: $0.aaguid) }, clientAddress: origin.clientAddress,
            userAgent: origin.userAgent, requestID: origin.requestID, actor: origin.actor, detail: fact?.rawValue ?? detail,
            reason: reason, backupEligible: credential?.backupEligible)
    }

    /// The detail of a rename (`passkey.renamed`, `device_key.renamed`): `renamed to "NAME"`, quoted
    /// and escaped as a Swift string literal (the page reads it back), or `name removed`.
    package static func renameDetail(_ name: String?) -> String {
        name.map { "renamed to \($0.debugDescription)" } ?? "name removed"
    }

    /// `evt_` and 128 random bits in base64url.
    package static func newID() throws -> String {
        "evt_" + Base64URL.encode(try SecureRandom.bytes(count: 16))
    }
}
