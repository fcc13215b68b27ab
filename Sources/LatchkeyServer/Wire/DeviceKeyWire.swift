import Foundation
import LatchkeyService
import LatchkeyStore
import WebAuthn

/// `POST /device-keys` reply.
struct DeviceKeyEnrolledReply: ReplyBody {
    /// SHA-256 of the public key, base64url: what the app signs in with.
    var keyId: Base64URLBytes
}

/// One device key as `GET /device-keys` and `GET /credentials` list it.
struct DeviceKeySummary: Encodable, Sendable {
    /// Always `deviceKey`, beside the passkeys' `passkey`.
    let kind = "deviceKey"
    var keyId: Base64URLBytes
    var name: String?
    var createdAt: String
    var lastUsedAt: String?
    /// Whether an App Attest assertion from a genuine copy of the app vouched for its enrollment.
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
struct DeviceKeyReply: ReplyBody {
    var deviceKey: DeviceKeySummary
}

/// `GET /device-keys` reply.
struct DeviceKeyListReply: ReplyBody {
    var deviceKeys: [DeviceKeySummary]
}
