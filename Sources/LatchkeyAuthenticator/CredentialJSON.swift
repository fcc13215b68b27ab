import Foundation

/// `RegistrationResponseJSON` (WebAuthn §5.1, `PublicKeyCredential.toJSON()` after `create()`):
/// the body `POST /attestation/result` takes.
struct RegistrationResponseJSON: Encodable {
    struct Response: Encodable {
        var clientDataJSON: Base64URLMember
        var authenticatorData: Base64URLMember
        var transports: [String]
        /// DER SubjectPublicKeyInfo.
        var publicKey: Base64URLMember
        var publicKeyAlgorithm: Int64
        var attestationObject: Base64URLMember
    }

    struct ClientExtensionResults: Encodable {
        struct CredentialProperties: Encodable {
            var rk: Bool
        }

        var credProps: CredentialProperties
    }

    var id: Base64URLMember
    var rawId: Base64URLMember
    var type = "public-key"
    var response: Response
    var authenticatorAttachment: String
    var clientExtensionResults: ClientExtensionResults
}

/// `AuthenticationResponseJSON` (WebAuthn §5.1, `toJSON()` after `get()`): the body
/// `POST /assertion/result` takes.
struct AuthenticationResponseJSON: Encodable {
    struct Response: Encodable {
        var clientDataJSON: Base64URLMember
        var authenticatorData: Base64URLMember
        var signature: Base64URLMember
        var userHandle: Base64URLMember
    }

    var id: Base64URLMember
    var rawId: Base64URLMember
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
