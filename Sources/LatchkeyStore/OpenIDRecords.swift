import Foundation

/// An application that signs its people in through the tenant's OpenID provider, as an administrator registered it.
public struct OAuthClientRecord: Sendable, Equatable {
    /// The client's ID, made by Latchkey (base64url of 16 random bytes).
    public var clientID: String
    public var name: String
    /// The SHA-256 of a confidential client's secret; nil for a public client (a native app or a page), which proves
    /// itself with PKCE alone.
    public var secretHash: [UInt8]?
    /// Where the provider may send a code, compared exactly.
    public var redirectURIs: [String]
    /// Where RP-initiated logout may send the browser afterwards, compared exactly.
    public var postLogoutRedirectURIs: [String]
    /// The scopes the client may ask for (`offline_access` among them lets it have refresh tokens).
    public var scopes: [String]
    /// Whether each authorization asks the person first.
    public var consent: Bool
    /// Seconds an access token lives.
    public var accessTokenLifetime: Int
    /// Seconds a refresh token lives, each rotation starting again.
    public var refreshTokenLifetime: Int
    public var createdAt: Date
    public var updatedAt: Date
    /// When not empty, only members of one of these groups may sign in to the client.
    public var allowedGroups: [String]
    /// Whether the client may use the device authorization grant (RFC 8628): a CLI or a TV whose person approves on
    /// another device. Off unless asked, as a device code can be phished.
    public var deviceAuthorization: Bool

    public init(
        clientID: String, name: String, secretHash: [UInt8]?, redirectURIs: [String], postLogoutRedirectURIs: [String], scopes: [String],
        consent: Bool, accessTokenLifetime: Int, refreshTokenLifetime: Int, createdAt: Date, updatedAt: Date, allowedGroups: [String] = [],
        deviceAuthorization: Bool = false
    ) {
        self.allowedGroups = allowedGroups
        self.deviceAuthorization = deviceAuthorization
        self.clientID = clientID
        self.name = name
        self.secretHash = secretHash
        self.redirectURIs = redirectURIs
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.scopes = scopes
        self.consent = consent
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// A client without a secret.
    public var isPublic: Bool { secretHash == nil }
}

/// One authorization a person gave a client: the code it starts with, then the access and refresh tokens the code
/// and each refresh give. Every token of a grant is `grant ID ‖ secret`; only the secrets' SHA-256 are kept, one of
/// each kind at a time, so a rotated refresh token presented again is recognised as reuse and revokes the grant (the
/// token family). ``revision`` moves on every change: the store changes a grant only from the revision its caller read.
public struct OAuthGrantRecord: Sendable, Equatable {
    /// 16 random bytes.
    public var id: [UInt8]
    public var clientID: String
    public var userHandle: [UInt8]
    /// The scopes granted, in the order asked.
    public var scopes: [String]
    /// The redirect URI the code was sent to, which the token request must repeat.
    public var redirectURI: String
    public var nonce: String?
    /// The PKCE challenge (S256), base64url.
    public var codeChallenge: String?
    /// When the person signed in, and what the sign-in proved (RFC 8176 values).
    public var authTime: Date
    public var methods: [String]
    public var codeHash: [UInt8]
    public var codeExpiresAt: Date
    /// When the code was exchanged; a second exchange revokes the grant.
    public var codeUsedAt: Date?
    public var accessHash: [UInt8]?
    public var accessExpiresAt: Date?
    public var refreshHash: [UInt8]?
    public var refreshExpiresAt: Date?
    public var revokedAt: Date?
    public var createdAt: Date
    /// When the row may go: past every token's expiry (a day after revocation).
    public var expiresAt: Date
    public var revision: Int64
    /// The SHA-256 of the grant's rotated-out refresh tokens, newest last, at most ``spentRefreshTokensKept``: one of
    /// them presented again is reuse (the grant is revoked); any other token of the grant's ID is only refused, so a
    /// guess (a resource server that saw the grant's ID in an access token) cannot revoke it.
    public var spentRefreshHashes: [[UInt8]]

    /// How many rotated-out refresh tokens a grant recognises.
    public static let spentRefreshTokensKept = 16

    public init(
        id: [UInt8], clientID: String, userHandle: [UInt8], scopes: [String], redirectURI: String, nonce: String?, codeChallenge: String?,
        authTime: Date, methods: [String], codeHash: [UInt8], codeExpiresAt: Date, codeUsedAt: Date? = nil, accessHash: [UInt8]? = nil,
        accessExpiresAt: Date? = nil, refreshHash: [UInt8]? = nil, refreshExpiresAt: Date? = nil, revokedAt: Date? = nil, createdAt: Date,
        expiresAt: Date, revision: Int64 = 0, spentRefreshHashes: [[UInt8]] = []
    ) {
        self.id = id
        self.clientID = clientID
        self.userHandle = userHandle
        self.scopes = scopes
        self.redirectURI = redirectURI
        self.nonce = nonce
        self.codeChallenge = codeChallenge
        self.authTime = authTime
        self.methods = methods
        self.codeHash = codeHash
        self.codeExpiresAt = codeExpiresAt
        self.codeUsedAt = codeUsedAt
        self.accessHash = accessHash
        self.accessExpiresAt = accessExpiresAt
        self.refreshHash = refreshHash
        self.refreshExpiresAt = refreshExpiresAt
        self.revokedAt = revokedAt
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revision = revision
        self.spentRefreshHashes = spentRefreshHashes
    }

    /// The current refresh token's hash moved to the spent ones (the oldest forgotten past the limit).
    public mutating func spendRefreshToken() {
        guard let refreshHash else { return }
        spentRefreshHashes = Array((spentRefreshHashes + [refreshHash]).suffix(Self.spentRefreshTokensKept))
        self.refreshHash = nil
    }

    /// The spent hashes in one column: 32 bytes each, newest last.
    public var spentRefreshColumn: [UInt8] { spentRefreshHashes.flatMap { $0 } }

    /// The spent hashes of a column ``spentRefreshColumn`` wrote.
    public static func spentRefreshHashes(fromColumn bytes: [UInt8]) -> [[UInt8]] {
        stride(from: 0, to: bytes.count - bytes.count % 32, by: 32).map { Array(bytes[$0..<$0 + 32]) }
    }
}

/// A device's request to sign in (RFC 8628): the device polls with its device code while a person, on a phone or
/// computer, enters the user code, signs in with a passkey and approves or denies. Approved, it becomes a grant with
/// the same ID whose code is the device code, exchanged once like an authorization's code. Only hashes of the two codes
/// are kept.
public struct OAuthDeviceAuthorizationRecord: Sendable, Equatable {
    /// What the person decided.
    public enum Decision: String, Sendable {
        case approved, denied
    }

    /// The ID of the grant it becomes, the first part of the device code.
    public var grantID: [UInt8]
    public var deviceCodeHash: [UInt8]
    /// The SHA-256 of the user code as the person types it, normalized (upper case, no separator).
    public var userCodeHash: [UInt8]
    public var clientID: String
    public var scopes: [String]
    public var createdAt: Date
    public var expiresAt: Date
    /// Seconds the device waits between polls; raised each time it polls sooner (`slow_down`).
    public var interval: Int
    public var polledAt: Date?
    public var decision: Decision?
    /// Who decided.
    public var userHandle: [UInt8]?

    public init(
        grantID: [UInt8], deviceCodeHash: [UInt8], userCodeHash: [UInt8], clientID: String, scopes: [String], createdAt: Date,
        expiresAt: Date, interval: Int, polledAt: Date? = nil, decision: Decision? = nil, userHandle: [UInt8]? = nil
    ) {
        self.grantID = grantID
        self.deviceCodeHash = deviceCodeHash
        self.userCodeHash = userCodeHash
        self.clientID = clientID
        self.scopes = scopes
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.interval = interval
        self.polledAt = polledAt
        self.decision = decision
        self.userHandle = userHandle
    }
}

/// A grant with its user and client, read together: what every use of a token checks.
public struct OAuthGrantLookup: Sendable, Equatable {
    public var grant: OAuthGrantRecord
    public var user: UserRecord
    public var client: OAuthClientRecord
    /// The user's contact, when they have one.
    public var contact: UserContact?

    public init(grant: OAuthGrantRecord, user: UserRecord, client: OAuthClientRecord, contact: UserContact? = nil) {
        self.grant = grant
        self.user = user
        self.client = client
        self.contact = contact
    }
}

/// The OpenID provider's clients and grants, each of the store's tenant. Deleting a client or a user deletes its
/// grants in the same transaction, so their tokens stop working at once.
public protocol OpenIDStore: Sendable {
    /// Stores a new client; ``StoreError/Code/nameTaken`` when its ID exists.
    func saveOAuthClient(_ client: OAuthClientRecord, recording events: [SecurityEvent]) async throws
    /// The client with this ID, if any.
    func oauthClient(id: String) async throws -> OAuthClientRecord?
    /// The tenant's clients, oldest first, at most `limit`.
    func oauthClients(limit: Int) async throws -> [OAuthClientRecord]
    /// Replaces a client's record; false when there is no such client.
    func updateOAuthClient(_ client: OAuthClientRecord, recording events: [SecurityEvent]) async throws -> Bool
    /// Removes a client and every grant of it; false when there is no such client.
    func deleteOAuthClient(id: String, recording events: [SecurityEvent]) async throws -> Bool

    /// Stores a new grant (an authorization with its code).
    func saveOAuthGrant(_ grant: OAuthGrantRecord, recording events: [SecurityEvent]) async throws
    /// The grant with this ID, with its user and client; nil when any of them is gone.
    func oauthGrant(id: [UInt8]) async throws -> OAuthGrantLookup?
    /// Writes `grant` over the stored one only if that one is still at `grant.revision`, moving the revision on;
    /// false (and nothing written) when another change came first or the grant is gone.
    func replaceOAuthGrant(_ grant: OAuthGrantRecord, recording events: [SecurityEvent]) async throws -> Bool
    /// Revokes a grant whatever its revision: its tokens stop working, the row goes a day later. False when there
    /// was no unrevoked grant with this ID.
    func revokeOAuthGrant(id: [UInt8], now: Date, recording events: [SecurityEvent]) async throws -> Bool
    /// Revokes every grant of a user (disabled); returns how many.
    func revokeOAuthGrants(ofUser handle: [UInt8], now: Date) async throws -> Int

    /// The scopes a user agreed to give a client (on its consent page), nil when they never did.
    func oauthConsent(ofUser handle: [UInt8], client clientID: String) async throws -> [String]?
    /// Records that a user agreed to give a client `scopes`, replacing what they agreed to before.
    func saveOAuthConsent(ofUser handle: [UInt8], client clientID: String, scopes: [String], at: Date) async throws

    /// Stores a new device authorization; ``StoreError/Code/nameTaken`` when its user code is in use in the tenant.
    func saveOAuthDeviceAuthorization(_ authorization: OAuthDeviceAuthorizationRecord) async throws
    /// The device authorization of this grant ID, if any (kept a day past its expiry, then purged).
    func oauthDeviceAuthorization(grantID: [UInt8]) async throws -> OAuthDeviceAuthorizationRecord?
    /// The device authorization with this user code's hash, if any.
    func oauthDeviceAuthorization(userCodeHash: [UInt8]) async throws -> OAuthDeviceAuthorizationRecord?
    /// Notes a poll of an undecided authorization at `at`, with the interval the next one waits.
    func noteOAuthDevicePoll(grantID: [UInt8], at: Date, interval: Int) async throws
    /// Records a person's decision on an undecided, unexpired device authorization and, approving, writes `grant` (its
    /// grant) in the same transaction. False, writing nothing, when it was decided already, expired or is gone.
    func decideOAuthDeviceAuthorization(
        grantID: [UInt8], _ decision: OAuthDeviceAuthorizationRecord.Decision, by userHandle: [UInt8], grant: OAuthGrantRecord?, now: Date
    ) async throws -> Bool
}
