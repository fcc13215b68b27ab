/// The attestation types of WebAuthn §6.5.4, as established by verifying a statement.
public enum AttestationType: String, Codable, Sendable {
    case none
    case `self`
    case basic
    case attCA
    case anonCA
}

/// What verifying an attestation statement established.
public struct AttestationResult: Sendable {
    public let type: AttestationType
    /// The certificates the statement carried, leaf first (DER); empty for none and self.
    public let trustPath: [[UInt8]]

    public init(type: AttestationType, trustPath: [[UInt8]] = []) {
        self.type = type
        self.trustPath = trustPath
    }
}
