import Foundation
import LatchkeyConfiguration
import WebAuthn

/// Signs webhook deliveries as the Standard Webhooks specification says: the signature is the
/// base64 HMAC-SHA256, under the secret's bytes, of `{webhook-id}.{webhook-timestamp}.{body}`, sent
/// as `webhook-signature: v1,{signature}`. Receivers verify it with any Standard Webhooks library.
struct WebhookSigner: Sendable {
    private let key: [UInt8]

    /// `secret` as Standard Webhooks libraries take it: `whsec_` and base64.
    init(secret: String) throws {
        key = try LatchkeyConfiguration.webhookSigningKey(secret)
    }

    /// The `webhook-signature` value for one delivery attempt.
    func signature(id: String, timestamp: Int, body: [UInt8]) throws -> String {
        let message = Array("\(id).\(timestamp).".utf8) + body
        return "v1," + Data(try HMAC.sha256(key: key, message: message)).base64EncodedString()
    }
}
