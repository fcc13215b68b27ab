import Foundation
@testable import LatchkeyAuthenticator
import WebAuthn

/// The software authenticator (`LatchkeyAuthenticator`: its keys, COSE keys and authenticator data)
/// driven by route tests, with the knobs they need that a real provider never turns: the flags,
/// the AAGUID, the origin in client data. `none` attestation; assertions signed over real bytes.
final class TestAuthenticator: @unchecked Sendable {
    struct Credential {
        let id: [UInt8]
        let key: CredentialPrivateKey
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

    /// A `RegistrationResponseJSON` answering creation `options`.
    func register(_ options: [String: Any], flags: UInt8 = 0x45, aaguid: [UInt8] = Array(repeating: 0, count: 16)) throws -> [String: Any] {
        let challenge = try string(options["challenge"], "challenge")
        let user = options["user"] as? [String: Any] ?? [:]
        let userHandle = Base64URL.decode(try string(user["id"], "user.id")) ?? []
        let key = try CredentialPrivateKey.generate(.es256)
        let id = try SecureRandom.bytes(count: 16)
        credentials.append(Credential(id: id, key: key, userHandle: userHandle, signCount: 0))

        let clientDataJSON = Array(#"{"type":"webauthn.create","challenge":"\#(challenge)","origin":"\#(origin)","crossOrigin":false}"#.utf8)
        let authenticatorData = AuthenticatorDataBytes.make(
            rpID: rpID, flags: AuthenticatorFlags(rawValue: flags), signCount: 0,
            attested: .init(aaguid: aaguid, credentialID: id, publicKey: COSEPublicKey.encode(try key.publicKeyParts(), algorithm: .es256)))
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
        let authenticatorData = AuthenticatorDataBytes.make(
            rpID: rpID, flags: AuthenticatorFlags(rawValue: flags), signCount: credential.signCount)
        let signature = try credential.key.sign(authenticatorData + Digest.sha256(clientDataJSON))
        return [
            "id": Base64URL.encode(credential.id), "rawId": Base64URL.encode(credential.id), "type": "public-key",
            "response": [
                "clientDataJSON": Base64URL.encode(clientDataJSON),
                "authenticatorData": Base64URL.encode(authenticatorData),
                "signature": Base64URL.encode(signature),
                "userHandle": Base64URL.encode(credential.userHandle),
            ],
            "clientExtensionResults": [String: Any](),
        ]
    }

    private func string(_ value: Any?, _ name: String) throws -> String {
        guard let text = value as? String else { throw TestAuthenticatorError("options have no \(name)") }
        return text
    }
}

struct TestAuthenticatorError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
