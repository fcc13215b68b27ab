/// `residentKey` in `authenticatorSelection` (WebAuthn §5.4.6): whether a registration asks for a
/// discoverable credential.
public enum ResidentKeyRequirement: String, Sendable, CaseIterable {
    case discouraged
    case preferred
    case required
}
