import Foundation
import WebAuthn

/// The keys file: every credential the software authenticator created, with its private key.
/// JSON, kept with mode 0600, rewritten whole on every change (see `KeyFile+Storage.swift`).
public struct KeyFile: Codable, Sendable {
    /// The format version this code writes and reads.
    public static let currentVersion = 1

    public var version: Int
    /// In the order they were created.
    public var credentials: [StoredCredential]

    public init(credentials: [StoredCredential] = []) {
        self.version = Self.currentVersion
        self.credentials = credentials
    }
}

/// One credential in the keys file: what a passkey provider keeps for a discoverable credential.
public struct StoredCredential: Codable, Sendable {
    public var id: [UInt8]
    public var rpID: String
    public var userHandle: [UInt8]
    public var username: String
    public var displayName: String
    public var algorithm: CredentialAlgorithm
    /// The private key as unencrypted PKCS#8 PEM.
    public var privateKey: String
    /// The signature counter of the last assertion (0 after registration).
    public var signCount: UInt32
    public var createdAt: Date

    private enum CodingKeys: String, CodingKey {
        case id, rpId, userHandle, username, displayName, algorithm, privateKey, signCount, createdAt
    }

    public init(id: [UInt8], rpID: String, userHandle: [UInt8], username: String, displayName: String,
                algorithm: CredentialAlgorithm, privateKey: String, signCount: UInt32, createdAt: Date) {
        self.id = id
        self.rpID = rpID
        self.userHandle = userHandle
        self.username = username
        self.displayName = displayName
        self.algorithm = algorithm
        self.privateKey = privateKey
        self.signCount = signCount
        self.createdAt = createdAt
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Base64URLBytes.self, forKey: .id).bytes
        rpID = try container.decode(String.self, forKey: .rpId)
        userHandle = try container.decode(Base64URLBytes.self, forKey: .userHandle).bytes
        username = try container.decode(String.self, forKey: .username)
        displayName = try container.decodeIfPresent(String.self, forKey: .displayName) ?? username
        algorithm = try container.decode(CredentialAlgorithm.self, forKey: .algorithm)
        privateKey = try container.decode(String.self, forKey: .privateKey)
        signCount = try container.decode(UInt32.self, forKey: .signCount)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Base64URLBytes(id), forKey: .id)
        try container.encode(rpID, forKey: .rpId)
        try container.encode(Base64URLBytes(userHandle), forKey: .userHandle)
        try container.encode(username, forKey: .username)
        try container.encode(displayName, forKey: .displayName)
        try container.encode(algorithm, forKey: .algorithm)
        try container.encode(privateKey, forKey: .privateKey)
        try container.encode(signCount, forKey: .signCount)
        try container.encode(createdAt, forKey: .createdAt)
    }
}
