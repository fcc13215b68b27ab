/// The attestation types of WebAuthn §6.5.4, as established by verifying a statement.
public enum AttestationType: String, Codable, Sendable {
    case none
    case `self`
    case basic
    case attCA
    case anonCA
}
