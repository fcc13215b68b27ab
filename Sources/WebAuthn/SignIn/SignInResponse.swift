/// The client's answer to `navigator.credentials.get()`, decoded from its JSON form.
public struct SignInResponse: Sendable {
    public var credentialID: [UInt8]
    public var clientDataJSON: [UInt8]
    public var authenticatorData: [UInt8]
    public var signature: [UInt8]
    /// The user handle the authenticator returned; nil when absent or empty.
    public var userHandle: [UInt8]?

    public init(credentialID: [UInt8], clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8], userHandle: [UInt8]?) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }
}

/// What the server issued for one sign-in and knows about the credential used.
public struct SignInExpectation: Sendable {
    public var challenge: IssuedChallenge
    public var userVerification: UserVerificationRequirement
    /// The stored COSE_Key bytes of the credential.
    public var publicKey: [UInt8]
    public var storedSignCount: UInt32
    /// The handle of the user who owns the credential.
    public var userHandle: [UInt8]
    /// True when the user was not named before the ceremony (usernameless sign-in): the response
    /// must then carry the user handle (§7.2 step 6).
    public var userHandleRequired: Bool
    /// The BE flag recorded at registration, when known.
    public var storedBackupEligible: Bool?

    public init(challenge: IssuedChallenge, userVerification: UserVerificationRequirement, publicKey: [UInt8], storedSignCount: UInt32, userHandle: [UInt8], userHandleRequired: Bool, storedBackupEligible: Bool? = nil) {
        self.challenge = challenge
        self.userVerification = userVerification
        self.publicKey = publicKey
        self.storedSignCount = storedSignCount
        self.userHandle = userHandle
        self.userHandleRequired = userHandleRequired
        self.storedBackupEligible = storedBackupEligible
    }

    /// For the sign-in issued with `challenge`.
    public init(challenge: [UInt8], userVerification: UserVerificationRequirement, publicKey: [UInt8], storedSignCount: UInt32, userHandle: [UInt8], userHandleRequired: Bool, storedBackupEligible: Bool? = nil) {
        self.init(
            challenge: .expected(challenge), userVerification: userVerification, publicKey: publicKey, storedSignCount: storedSignCount,
            userHandle: userHandle, userHandleRequired: userHandleRequired, storedBackupEligible: storedBackupEligible)
    }
}

/// A sign-in that passed every check.
public struct VerifiedSignIn: Sendable {
    public let credentialID: [UInt8]
    public let signCount: UInt32
    public let flags: AuthenticatorFlags
    /// True when the counter did not increase and the policy accepted it anyway.
    public let signCountRegressed: Bool
    /// True when BE differs from the registered value and the policy accepted it.
    public let backupEligibilityChanged: Bool
    public let extensions: AuthenticatorExtensionOutputs

    public var userVerified: Bool { flags.contains(.userVerified) }
    public var backupEligible: Bool { flags.contains(.backupEligible) }
    public var backedUp: Bool { flags.contains(.backedUp) }
}
