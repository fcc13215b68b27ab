import Foundation
import WebAuthn

/// Signs webhook deliveries as the Standard Webhooks specification says: the signature is the
/// base64 HMAC-SHA256, under the secret's bytes, of `{webhook-id}.{webhook-timestamp}.{body}`, sent
/// as `webhook-signature: v1,{signature}`. Receivers verify it with any Standard Webhooks library.
struct WebhookSigner: Sendable {
    /// A secret that is not `whsec_` and the base64 of 24 to 64 bytes.
    struct SecretError: Error, CustomStringConvertible {
        let description: String
    }

    private let key: [UInt8]

    /// `secret` as Standard Webhooks libraries take it: `whsec_` and base64.
    init(secret: String) throws {
        guard secret.hasPrefix("whsec_") else {
            throw SecretError(description: "must start with whsec_ (then the base64 of 24 to 64 random bytes)")
        }
        guard let key = Data(base64Encoded: String(secret.dropFirst("whsec_".count))) else {
            throw SecretError(description: "must be whsec_ followed by base64 (for example whsec_$(openssl rand -base64 32))")
        }
        guard (24...64).contains(key.count) else {
            throw SecretError(description: "must hold 24 to 64 bytes after whsec_ (it holds \(key.count))")
        }
        self.key = Array(key)
    }

    /// The `webhook-signature` value for one delivery attempt.
    func signature(id: String, timestamp: Int, body: [UInt8]) throws -> String {
        let message = Array("\(id).\(timestamp).".utf8) + body
        return "v1," + Data(try HMAC.sha256(key: key, message: message)).base64EncodedString()
    }
}
