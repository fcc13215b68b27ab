/// An attestation statement format identifier (`fmt`, WebAuthn §8 and the IANA registry), such as
/// `packed`. A struct rather than an enum, so a stored value from a newer release still reads back.
public struct AttestationFormatIdentifier: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let packed = AttestationFormatIdentifier(rawValue: "packed")
    public static let tpm = AttestationFormatIdentifier(rawValue: "tpm")
    public static let androidKey = AttestationFormatIdentifier(rawValue: "android-key")
    public static let androidSafetyNet = AttestationFormatIdentifier(rawValue: "android-safetynet")
    public static let fidoU2F = AttestationFormatIdentifier(rawValue: "fido-u2f")
    public static let apple = AttestationFormatIdentifier(rawValue: "apple")
    public static let compound = AttestationFormatIdentifier(rawValue: "compound")
    public static let none = AttestationFormatIdentifier(rawValue: "none")

    public var description: String { rawValue }
}
