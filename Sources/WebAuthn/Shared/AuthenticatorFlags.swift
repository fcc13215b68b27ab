/// The flags byte of authenticator data (WebAuthn §6.1).
public struct AuthenticatorFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// UP: the user was present.
    public static let userPresent = AuthenticatorFlags(rawValue: 1 << 0)
    /// UV: the user was verified (biometrics, PIN, passcode).
    public static let userVerified = AuthenticatorFlags(rawValue: 1 << 2)
    /// BE: the credential may be backed up (a synced passkey).
    public static let backupEligible = AuthenticatorFlags(rawValue: 1 << 3)
    /// BS: the credential is currently backed up.
    public static let backedUp = AuthenticatorFlags(rawValue: 1 << 4)
    /// AT: attested credential data follows.
    public static let attestedCredentialData = AuthenticatorFlags(rawValue: 1 << 6)
    /// ED: extension outputs follow.
    public static let extensionData = AuthenticatorFlags(rawValue: 1 << 7)
}
