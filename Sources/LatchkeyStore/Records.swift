import Foundation
import WebAuthn

/// A person who can sign in. Created when their first passkey is registered, or by a backend
/// through the admin API before they have any.
public struct UserRecord: Sendable, Equatable {
    /// The WebAuthn user handle: 64 random bytes, never shown to people.
    public var handle: [UInt8]
    public var username: String
    public var displayName: String
    public var createdAt: Date
    /// The backend's own identifier for this account, unique when set.
    public var externalId: String?
    /// Set by the backend: the account may not sign in, use a session or add a key until it is cleared.
    public var disabled: Bool

    public init(
        handle: [UInt8], username: String, displayName: String, createdAt: Date, externalId: String? = nil, disabled: Bool = false
    ) {
        self.handle = handle
        self.username = username
        self.displayName = displayName
        self.createdAt = createdAt
        self.externalId = externalId
        self.disabled = disabled
    }
}

/// A user with what a list of users shows of their passkeys.
public struct UserOverview: Sendable, Equatable {
    public var user: UserRecord
    public var passkeys: Int
    /// The last use of any of their passkeys; nil until their first sign-in.
    public var lastSignInAt: Date?

    public init(user: UserRecord, passkeys: Int, lastSignInAt: Date?) {
        self.user = user
        self.passkeys = passkeys
        self.lastSignInAt = lastSignInAt
    }
}

/// How the registered passkeys look, in aggregate: what decoys for unknown usernames imitate.
public struct PasskeyShapes: Sendable, Equatable {
    /// What a passkey shows in `allowCredentials`, besides its ID's bytes.
    public struct Shape: Sendable, Hashable {
        public var idLength: Int
        public var transports: [AuthenticatorTransport]

        public init(idLength: Int, transports: [AuthenticatorTransport]) {
            self.idLength = idLength
            self.transports = transports
        }
    }

    /// How many passkeys have each shape.
    public var passkeys: [Shape: Int]
    /// How many users have each number of passkeys, from one up.
    public var usersByPasskeyCount: [Int: Int]

    /// How many users the shapes are counted over, at most: the first by username, whose passkeys look as anyone's do.
    public static let sampledUsers = 1_000

    public init(passkeys: [Shape: Int] = [:], usersByPasskeyCount: [Int: Int] = [:]) {
        self.passkeys = passkeys
        self.usersByPasskeyCount = usersByPasskeyCount
    }
}

/// A registered passkey: what §7.1 step 27 says to keep, plus bookkeeping.
public struct CredentialRecord: Sendable, Equatable {
    public var id: [UInt8]
    public var userHandle: [UInt8]
    /// The COSE_Key bytes as the authenticator encoded them.
    public var publicKey: [UInt8]
    public var algorithm: COSEAlgorithm
    public var signCount: UInt32
    public var transports: [AuthenticatorTransport]
    public var aaguid: [UInt8]
    public var attestationFormat: AttestationFormatIdentifier
    public var attestationType: AttestationType
    /// Whether the attestation's certificate path verified to a trust anchor.
    public var attestationTrusted: Bool
    /// The attestation certificates, leaf first (DER), kept to re-evaluate trust later.
    public var trustPath: [[UInt8]]
    /// The credProtect level the authenticator reported, when it did.
    public var credentialProtectionPolicy: UInt8?
    /// How many sign-ins were refused because the counter went backwards (a possible clone).
    public var signCountRegressions: Int
    public var backupEligible: Bool
    public var backedUp: Bool
    /// `credProps.rk` as the client reported it, when it did.
    public var residentKey: Bool?
    public var userVerified: Bool
    public var createdAt: Date
    public var lastUsedAt: Date?
    /// The name its owner gave it; nil until they do (show the authenticator's name then).
    public var name: String?

    public init(
        id: [UInt8], userHandle: [UInt8], publicKey: [UInt8], algorithm: COSEAlgorithm, signCount: UInt32,
        transports: [AuthenticatorTransport], aaguid: [UInt8], attestationFormat: AttestationFormatIdentifier,
        attestationType: AttestationType,
        attestationTrusted: Bool = false, trustPath: [[UInt8]] = [], credentialProtectionPolicy: UInt8? = nil,
        signCountRegressions: Int = 0,
        backupEligible: Bool, backedUp: Bool, residentKey: Bool?, userVerified: Bool,
        createdAt: Date, lastUsedAt: Date? = nil, name: String? = nil
    ) {
        self.id = id
        self.userHandle = userHandle
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.transports = transports
        self.aaguid = aaguid
        self.attestationFormat = attestationFormat
        self.attestationType = attestationType
        self.attestationTrusted = attestationTrusted
        self.trustPath = trustPath
        self.credentialProtectionPolicy = credentialProtectionPolicy
        self.signCountRegressions = signCountRegressions
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.residentKey = residentKey
        self.userVerified = userVerified
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.name = name
    }

    /// The record of a credential that passed registration, for `userHandle`, made at `createdAt`.
    public init(verified: VerifiedRegistration, userHandle: [UInt8], createdAt: Date) {
        self.init(
            id: verified.credentialID, userHandle: userHandle, publicKey: verified.publicKey, algorithm: verified.algorithm,
            signCount: verified.signCount, transports: verified.transports, aaguid: verified.aaguid,
            attestationFormat: verified.attestationFormat, attestationType: verified.attestation.type,
            attestationTrusted: verified.attestationTrusted, trustPath: verified.attestation.trustPath,
            credentialProtectionPolicy: verified.extensions.credentialProtectionPolicy,
            backupEligible: verified.backupEligible, backedUp: verified.backedUp, residentKey: verified.residentKey,
            userVerified: verified.userVerified, createdAt: createdAt)
    }
}

/// Which ceremony a challenge was issued for.
public enum CeremonyKind: String, Sendable, CaseIterable {
    case registration
    case signIn = "authentication"
    /// Enrolling an app's device key.
    case deviceKeyEnrollment = "deviceKeyEnrolment"
    /// Signing in with a device key.
    case deviceKeySignIn
    /// Attesting an App Attest key, or asserting with one.
    case appAttest
}

/// A challenge that was issued and not yet answered, with what it was issued for.
public struct PendingCeremony: Sendable, Equatable {
    /// SHA-256 of the challenge: the challenge itself is never stored.
    public var challengeHash: [UInt8]
    public var kind: CeremonyKind
    /// The user the ceremony is for: the existing or the new user's handle; nil for usernameless sign-in.
    public var userHandle: [UInt8]?
    /// For registrations: the username and display name to create the user with.
    public var username: String?
    public var displayName: String?
    /// The user-verification requirement the options carried.
    public var userVerification: UserVerificationRequirement
    /// SHA-256 of the ceremony cookie handed out with the options, when one was.
    public var bindingHash: [UInt8]?
    public var expiresAt: Date
    /// For registrations under an enrollment ticket: the ticket's hash, spent by the result.
    public var enrollmentTicketHash: [UInt8]?
    /// For registrations: a conditional create (WebAuthn Level 3 `mediation: "conditional"`),
    /// whose result may lack user presence.
    public var conditional: Bool
    /// The client's value for the `nonce` claim of the token the ceremony ends with, when it sent one.
    public var nonce: String?
    /// The address the challenge was issued to, as its caps count it: kept by a store several instances share, so
    /// that each counts the others' pending challenges (``SharedLimitsStore``); not read back.
    public var client: String?

    public init(
        challengeHash: [UInt8], kind: CeremonyKind, userHandle: [UInt8]?, username: String?,
        displayName: String?, userVerification: UserVerificationRequirement, bindingHash: [UInt8]?, expiresAt: Date,
        enrollmentTicketHash: [UInt8]? = nil, conditional: Bool = false, nonce: String? = nil, client: String? = nil
    ) {
        self.challengeHash = challengeHash
        self.kind = kind
        self.userHandle = userHandle
        self.username = username
        self.displayName = displayName
        self.userVerification = userVerification
        self.bindingHash = bindingHash
        self.expiresAt = expiresAt
        self.enrollmentTicketHash = enrollmentTicketHash
        self.conditional = conditional
        self.nonce = nonce
        self.client = client
    }
}

/// A live session as an operator sees it: when it began and ends, and what signed it in; never its token.
public struct SessionOverview: Sendable, Equatable {
    public var createdAt: Date
    public var expiresAt: Date
    /// Signed in with a device key (else a passkey or a registration).
    public var deviceKey: Bool

    public init(createdAt: Date, expiresAt: Date, deviceKey: Bool) {
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.deviceKey = deviceKey
    }
}

/// A signed-in session. Only the SHA-256 of its token is stored.
public struct SessionRecord: Sendable, Equatable {
    public var tokenHash: [UInt8]
    public var userHandle: [UInt8]
    public var createdAt: Date
    public var expiresAt: Date
    /// What the sign-in that started it proved, as RFC 8176 values (`hwk` or `swk`, `user`, `mfa`); empty for a
    /// session older than the record of it.
    public var methods: [String]

    public init(tokenHash: [UInt8], userHandle: [UInt8], createdAt: Date, expiresAt: Date, methods: [String] = []) {
        self.tokenHash = tokenHash
        self.userHandle = userHandle
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.methods = methods
    }
}
