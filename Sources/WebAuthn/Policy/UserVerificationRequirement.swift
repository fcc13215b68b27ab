/// The relying party's user-verification requirement for one ceremony (WebAuthn §5.8.6).
public enum UserVerificationRequirement: String, Codable, Sendable, CaseIterable {
    case required
    case preferred
    case discouraged
}
