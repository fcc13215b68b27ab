import Foundation
import LatchkeyService
import LatchkeyStore
import WebAuthn

/// One passkey as `GET /credentials` lists it: what a person needs to recognise it, never its key.
struct CredentialSummary: Encodable, Sendable {
    /// Always `passkey`, beside the device keys' `deviceKey`.
    let kind = "passkey"
    var id: Base64URLBytes
    /// The name its owner gave it, else ``authenticatorName``.
    var name: String
    /// The provider or model, from the AAGUID (``AuthenticatorNames``).
    var authenticatorName: String
    /// Dashed lowercase hexadecimal.
    var aaguid: String
    var createdAt: Date
    /// Nil until the first sign-in with it.
    var lastUsedAt: Date?
    var backupEligible: Bool
    /// True when the provider syncs it (a "synced" passkey).
    var backedUp: Bool
    var transports: [AuthenticatorTransport]
    var attestationFormat: AttestationFormatIdentifier
    /// Whether the user was verified at the last use (or at registration).
    var userVerified: Bool

    init(_ record: CredentialRecord, names: AuthenticatorNames) {
        let authenticatorName = names.name(aaguid: record.aaguid)
        id = Base64URLBytes(record.id)
        name = record.name ?? authenticatorName
        self.authenticatorName = authenticatorName
        aaguid = AAGUID.string(record.aaguid)
        createdAt = record.createdAt
        lastUsedAt = record.lastUsedAt
        backupEligible = record.backupEligible
        backedUp = record.backedUp
        transports = record.transports
        attestationFormat = record.attestationFormat
        userVerified = record.userVerified
    }

    private enum CodingKeys: String, CodingKey {
        case kind, id, name, authenticatorName, aaguid, createdAt, lastUsedAt, backupEligible, backedUp, transports
        case attestationFormat, userVerified
    }

    /// Dates as RFC 3339 in UTC; `lastUsedAt` as null (not absent) when never used.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(authenticatorName, forKey: .authenticatorName)
        try container.encode(aaguid, forKey: .aaguid)
        try container.encode(RFC3339.string(createdAt), forKey: .createdAt)
        try container.encode(lastUsedAt.map(RFC3339.string), forKey: .lastUsedAt)
        try container.encode(backupEligible, forKey: .backupEligible)
        try container.encode(backedUp, forKey: .backedUp)
        try container.encode(transports, forKey: .transports)
        try container.encode(attestationFormat.rawValue, forKey: .attestationFormat)
        try container.encode(userVerified, forKey: .userVerified)
    }
}

/// `GET /credentials`: the signed-in user's passkeys, oldest first, with what the page needs for
/// the WebAuthn Signal API.
struct CredentialListReply: ReplyBody {
    var rpId: String
    var userHandle: Base64URLBytes
    var credentials: [CredentialSummary]
    /// The user's device keys (see `/device-keys`), renamed and removed there.
    var deviceKeys: [DeviceKeySummary]
}

/// `PATCH /credentials/{id}`: the renamed passkey.
struct CredentialReply: ReplyBody {
    var credential: CredentialSummary
}

/// The body of `PATCH /credentials/{id}`.
struct RenameCredentialRequest: Decodable, Sendable {
    /// The new name; nil (`"name": null`) removes the name its owner gave, so the provider's shows again.
    var name: String?

    enum CodingKeys: String, CodingKey { case name }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // Required, but may be null: a missing name is a mistake, not a wish to remove it.
        guard container.contains(.name) else {
            throw DecodingError.keyNotFound(CodingKeys.name, .init(codingPath: [], debugDescription: "name is required"))
        }
        name = try container.decodeNil(forKey: .name) ? nil : container.decode(String.self, forKey: .name)
    }
}
