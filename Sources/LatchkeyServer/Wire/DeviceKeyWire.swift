import Foundation
import LatchkeyService
import LatchkeyStore
import WebAuthn

/// `POST /device-keys/options` and `/device-keys/sign-in/options` reply: what the key signs over.
struct DeviceKeyOptionsReply: Encodable, Sendable {
    let status = "ok"
    let errorMessage = ""
    var challenge: Base64URLBytes
    /// Milliseconds.
    var timeout: Int
    var rpId: String
}

/// `POST /device-keys/options` body without a session: the enrollment ticket that names the user.
struct DeviceKeyEnrolmentOptionsRequest: Decodable, Sendable {
    var enrollmentTicket: String?
}

/// `POST /device-keys` body: a new key and its signature over the enrolment message.
struct DeviceKeyEnrolmentRequest: Decodable, Sendable {
    var challenge: Base64URLBytes
    /// The 65-byte uncompressed P-256 point `SecKeyCopyExternalRepresentation` returns.
    var publicKey: Base64URLBytes
    /// DER ECDSA-SHA-256, as `SecKeyCreateSignature(..., .ecdsaSignatureMessageX962SHA256, ...)` returns it.
    var signature: Base64URLBytes
    var name: String?
}

/// `POST /device-keys` reply.
struct DeviceKeyEnrolledReply: Encodable, Sendable {
    let status = "ok"
    let errorMessage = ""
    /// SHA-256 of the public key, base64url: what the app signs in with.
    var keyId: Base64URLBytes
}

/// `POST /device-keys/sign-in/options` body.
struct DeviceKeySignInOptionsRequest: Decodable, Sendable {
    var keyId: Base64URLBytes
    /// Carried back in the sign-in token's `nonce` claim.
    var nonce: String?
}

/// `POST /device-keys/sign-in` body.
struct DeviceKeySignInRequest: Decodable, Sendable {
    var keyId: Base64URLBytes
    var challenge: Base64URLBytes
    var signature: Base64URLBytes
}

/// One device key as `GET /device-keys` and `GET /credentials` list it.
struct DeviceKeySummary: Encodable, Sendable {
    /// Always `deviceKey`, beside the passkeys' `passkey`.
    let kind = "deviceKey"
    var keyId: Base64URLBytes
    var name: String?
    var createdAt: String
    var lastUsedAt: String?
    /// Whether an App Attest assertion from a genuine copy of the app vouched for its enrolment.
    var appAttested: Bool

    init(_ key: DeviceKeyRecord) {
        keyId = Base64URLBytes(key.id)
        name = key.name
        createdAt = RFC3339.string(key.createdAt)
        lastUsedAt = key.lastUsedAt.map(RFC3339.string)
        appAttested = key.appAttestKeyID != nil
    }

    private enum CodingKeys: String, CodingKey { case kind, keyId, name, createdAt, lastUsedAt, appAttested }

    /// `name` and `lastUsedAt` as null (not absent) when unset.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(keyId, forKey: .keyId)
        try container.encode(name, forKey: .name)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(lastUsedAt, forKey: .lastUsedAt)
        try container.encode(appAttested, forKey: .appAttested)
    }
}

/// `PATCH /device-keys/{keyId}` reply.
struct DeviceKeyReply: Encodable, Sendable {
    let status = "ok"
    let errorMessage = ""
    var deviceKey: DeviceKeySummary
}

/// `GET /device-keys` reply.
struct DeviceKeyListReply: Encodable, Sendable {
    let status = "ok"
    let errorMessage = ""
    var deviceKeys: [DeviceKeySummary]
}
