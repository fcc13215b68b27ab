import CLatchkeyTestSupport
import COpenSSL
import Foundation
import WebAuthn

/// A software passkey provider for route tests: P-256 credentials made by OpenSSL, `none`
/// attestation, assertions signed over real authenticator data and client data.
final class TestAuthenticator: @unchecked Sendable {
    struct Credential {
        let id: [UInt8]
        let key: OpaquePointer
        let userHandle: [UInt8]
        var signCount: UInt32
    }

    let origin: String
    let rpID: String
    private(set) var credentials: [Credential] = []

    init(origin: String = "http://localhost:8080", rpID: String = "localhost") {
        self.origin = origin
        self.rpID = rpID
    }

    deinit { for credential in credentials { lkt_free_key(credential.key) } }

    /// A `RegistrationResponseJSON` answering creation `options`.
    func register(_ options: [String: Any], flags: UInt8 = 0x45, aaguid: [UInt8] = Array(repeating: 0, count: 16)) throws -> [String: Any] {
        let challenge = try string(options["challenge"], "challenge")
        let user = options["user"] as? [String: Any] ?? [:]
        let userHandle = Base64URL.decode(try string(user["id"], "user.id")) ?? []
        guard let key = lkt_generate_p256() else { throw TestAuthenticatorError("key generation failed") }
        let id = try SecureRandom.bytes(count: 16)
        credentials.append(Credential(id: id, key: key, userHandle: userHandle, signCount: 0))

        let clientDataJSON = Array(#"{"type":"webauthn.create","challenge":"\#(challenge)","origin":"\#(origin)","crossOrigin":false}"#.utf8)
        var authenticatorData = Digest.sha256(Array(rpID.utf8)) + [flags] + [0, 0, 0, 0]
        authenticatorData += aaguid + [UInt8(id.count >> 8), UInt8(id.count & 0xFF)] + id
        authenticatorData += try Self.coseKey(key)
        let attestationObject = CBOREncoder.encode(.map([
            CBORMapEntry(key: .text("fmt"), value: .text("none")),
            CBORMapEntry(key: .text("attStmt"), value: .map([])),
            CBORMapEntry(key: .text("authData"), value: .bytes(authenticatorData)),
        ]))
        return [
            "id": Base64URL.encode(id), "rawId": Base64URL.encode(id), "type": "public-key",
            "response": [
                "clientDataJSON": Base64URL.encode(clientDataJSON),
                "attestationObject": Base64URL.encode(attestationObject),
                "transports": ["internal", "hybrid", "carrier-pigeon"],
            ],
            "clientExtensionResults": ["credProps": ["rk": true]],
        ]
    }

    /// An `AuthenticationResponseJSON` answering request `options` with credential `index`.
    func assert(_ options: [String: Any], credential index: Int = 0, flags: UInt8 = 0x05, clientDataOrigin: String? = nil) throws -> [String: Any] {
        let challenge = try string(options["challenge"], "challenge")
        credentials[index].signCount += 1
        let credential = credentials[index]
        let clientDataJSON = Array(#"{"type":"webauthn.get","challenge":"\#(challenge)","origin":"\#(clientDataOrigin ?? origin)"}"#.utf8)
        let count = credential.signCount
        let authenticatorData = Digest.sha256(Array(rpID.utf8)) + [flags, UInt8(count >> 24), UInt8((count >> 16) & 0xFF), UInt8((count >> 8) & 0xFF), UInt8(count & 0xFF)]
        let message = authenticatorData + Digest.sha256(clientDataJSON)
        var signature = [UInt8](repeating: 0, count: 128)
        let length = lkt_sign(credential.key, "SHA256", 0, 0, message, message.count, &signature, signature.count)
        guard length > 0 else { throw TestAuthenticatorError("signing failed") }
        return [
            "id": Base64URL.encode(credential.id), "rawId": Base64URL.encode(credential.id), "type": "public-key",
            "response": [
                "clientDataJSON": Base64URL.encode(clientDataJSON),
                "authenticatorData": Base64URL.encode(authenticatorData),
                "signature": Base64URL.encode(Array(signature.prefix(length))),
                "userHandle": Base64URL.encode(credential.userHandle),
            ],
            "clientExtensionResults": [String: Any](),
        ]
    }

    private func string(_ value: Any?, _ name: String) throws -> String {
        guard let text = value as? String else { throw TestAuthenticatorError("options have no \(name)") }
        return text
    }

    /// The COSE_Key (EC2, ES256) of a P-256 key.
    private static func coseKey(_ key: OpaquePointer) throws -> [UInt8] {
        var point = [UInt8](repeating: 0, count: 133)
        var length = 0
        guard EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, &point, point.count, &length) == 1,
              length == 65 else { throw TestAuthenticatorError("not a P-256 key") }
        return CBOREncoder.encode(.map([
            CBORMapEntry(key: .unsigned(1), value: .unsigned(2)), CBORMapEntry(key: .unsigned(3), value: .negative(6)),
            CBORMapEntry(key: .negative(0), value: .unsigned(1)),
            CBORMapEntry(key: .negative(1), value: .bytes(Array(point[1..<33]))),
            CBORMapEntry(key: .negative(2), value: .bytes(Array(point[33..<65]))),
        ]))
    }
}

struct TestAuthenticatorError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
