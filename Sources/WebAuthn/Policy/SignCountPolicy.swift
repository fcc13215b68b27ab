/// What to do when an assertion's signature counter does not increase (WebAuthn §7.2 step 22).
public enum SignCountPolicy: String, Codable, Sendable {
    /// Refuse the assertion: the authenticator may have been cloned (the default).
    case refuseRegression
    /// Accept it; the caller records the regression.
    case acceptRegression
}
