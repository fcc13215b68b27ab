// The relying party's decisions about the BE (backup eligible) flag: whether it may change, and whether it may be set.

/// What a sign-in gets when its credential's BE (backup eligible) flag differs from the one registered.
/// BE is fixed for a credential's lifetime, so a change means a different or misbehaving authenticator.
public enum BackupEligibilityChanges: String, Codable, Sendable, CaseIterable {
    /// Refused, as §7.2 step 18 asks (the default).
    case refused
    /// Accepted and reported, for authenticators known to misreport BE.
    case accepted
}

/// Which credentials may register, by their BE flag: whether they can be synced to other devices.
public enum SyncedCredentialPolicy: String, Sendable, CaseIterable {
    /// Synced (BE set: iCloud Keychain, Google Password Manager, password managers) and device-bound ones.
    case allowed
    /// Device-bound credentials only (BE clear: security keys, Windows Hello, device keys).
    case refused
}
