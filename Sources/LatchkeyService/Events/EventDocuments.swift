import Foundation
import LatchkeyConfiguration
import LatchkeyStore
import WebAuthn

/// One security event as the admin API, the account page and webhook bodies show it. Members
/// that do not apply are left out.
package struct SecurityEventSummary: Encodable, Sendable {
    package struct User: Encodable, Sendable {
        package var handle: Base64URLBytes
        package var username: String?
    }
    package struct Authenticator: Encodable, Sendable {
        /// Dashed lowercase hexadecimal.
        package var aaguid: String?
        package var name: String?
    }
    package struct Client: Encodable, Sendable {
        /// As `trustedProxies` resolved it; an IPv6 client by its /64.
        package var address: String?
        package var userAgent: String?
    }
    package struct Actor: Encodable, Sendable {
        /// `user`, `admin` or `system`.
        package var type: String
        /// The admin key's name, or the part of the system.
        package var name: String?
    }

    package var id: String
    package var type: String
    /// RFC 3339, UTC, milliseconds.
    package var time: String
    package var user: User?
    package var credentialId: Base64URLBytes?
    package var authenticator: Authenticator?
    package var client: Client?
    package var requestId: String?
    package var actor: Actor
    package var detail: String?
    /// A refused sign-in's check, as a code.
    package var reason: String?

    package init(_ event: SecurityEvent) {
        id = event.id
        type = event.type.rawValue
        time = RFC3339.string(event.occurredAt)
        user = event.userHandle.map { User(handle: Base64URLBytes($0), username: event.username) }
        credentialId = event.credentialID.map(Base64URLBytes.init)
        if event.aaguid != nil || event.authenticatorName != nil {
            authenticator = Authenticator(aaguid: event.aaguid.map(AAGUID.string), name: event.authenticatorName)
        }
        if event.clientAddress != nil || event.userAgent != nil {
            client = Client(address: event.clientAddress, userAgent: event.userAgent)
        }
        requestId = event.requestID
        actor = Actor(type: event.actor.kind.rawValue, name: event.actor.name)
        detail = event.detail
        reason = event.reason
    }
}

/// The body of a webhook delivery, in the Standard Webhooks shape: `type`, `timestamp` (when the
/// event occurred) and the event as `data`.
package struct WebhookPayload: Encodable, Sendable {
    package var type: String
    package var timestamp: String
    package var data: SecurityEventSummary

    package init(_ event: SecurityEvent) {
        type = event.type.rawValue
        timestamp = RFC3339.string(event.occurredAt)
        data = SecurityEventSummary(event)
    }
}
