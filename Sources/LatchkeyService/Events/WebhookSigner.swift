import Foundation
import LatchkeyConfiguration
import WebAuthn

/// Signs webhook deliveries as the Standard Webhooks specification says: the signature is the
/// base64 HMAC-SHA256, under the secret's bytes, of `{webhook-id}.{webhook-timestamp}.{body}`, sent
/// as `webhook-signature: v1,{signature}`. Receivers verify it with any Standard Webhooks library.
/// While a secret is rotated out, the header carries a signature under each, separated by a space.
package struct WebhookSigner: Sendable {
    private let keys: [[UInt8]]

    /// `secret` (and the `previous` one, while receivers move off it) as Standard Webhooks libraries take
    /// them: `whsec_` and base64.
    package init(secret: String, previous: String = "") throws {
        keys = try ([secret] + (previous.isEmpty ? [] : [previous])).map(LatchkeyConfiguration.webhookSigningKey)
    }

    /// The `webhook-signature` value for one delivery attempt.
    package func signature(id: String, timestamp: Int, body: [UInt8]) throws -> String {
        let message = Array("\(id).\(timestamp).".utf8) + body
        return try keys.map { "v1," + Data(try HMAC.sha256(key: $0, message: message)).base64EncodedString() }.joined(separator: " ")
    }
}

/// Shown, logged and reflected without its keys: ServiceLifecycle logs each service it starts, with its parts.
extension WebhookSigner: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    package var description: String { "WebhookSigner(\(keys.count) \(keys.count == 1 ? "key" : "keys"), \(ConfigurationRedaction.mark))" }
    package var debugDescription: String { description }
    package var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
