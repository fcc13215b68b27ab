import Foundation
import WebAuthn

/// `RegistrationResponseJSON` (WebAuthn §5.1, `PublicKeyCredential.toJSON()` after `create()`):
/// the body `POST /attestation/result` takes.
struct RegistrationResponseJSON: Encodable {
    struct Response: Encodable {
        var clientDataJSON: Base64URLBytes
        var authenticatorData: Base64URLBytes
        var transports: [String]
        /// DER SubjectPublicKeyInfo.
        var publicKey: Base64URLBytes
        var publicKeyAlgorithm: Int64
        var attestationObject: Base64URLBytes
    }

    struct ClientExtensionResults: Encodable {
        struct CredentialProperties: Encodable {
            var rk: Bool
        }

        var credProps: CredentialProperties
    }

    var id: Base64URLBytes
    var rawId: Base64URLBytes
    var type = "public-key"
    var response: Response
    var authenticatorAttachment: String
    var clientExtensionResults: ClientExtensionResults
}

/// `AuthenticationResponseJSON` (WebAuthn §5.1, `toJSON()` after `get()`): the body
/// `POST /assertion/result` takes.
struct AuthenticationResponseJSON: Encodable {
    struct Response: Encodable {
        var clientDataJSON: Base64URLBytes
        var authenticatorData: Base64URLBytes
        var signature: Base64URLBytes
        var userHandle: Base64URLBytes
    }

    var id: Base64URLBytes
    var rawId: Base64URLBytes
    var type = "public-key"
    var response: Response
    var authenticatorAttachment: String
    var clientExtensionResults: [String: String] = [:]
}

extension Encodable {
    /// One line of JSON with sorted keys, as the command writes it.
    func jsonLine() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(self)) + [UInt8(ascii: "\n")]
    }
}
