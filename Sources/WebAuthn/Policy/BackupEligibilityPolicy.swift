/// What to do when a credential's BE (backup eligible) flag differs from the one registered.
/// BE is fixed for a credential's lifetime, so a change means a different or misbehaving authenticator.
public enum BackupEligibilityPolicy: String, Codable, Sendable {
    /// Accept the sign-in and report the change so it can be logged (the default).
    case reportChange
    /// Refuse the sign-in.
    case refuseChange
}
