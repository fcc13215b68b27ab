/// What verifying an attestation statement established.
public struct AttestationResult: Sendable {
    public let type: AttestationType
    /// The certificates the statement carried, leaf first (DER); empty for none and self.
    public let trustPath: [[UInt8]]
    /// The format whose statement produced this result when it is not the object's `fmt` (the chosen
    /// member of a compound statement); trust anchors are looked up under it.
    public var format: String?

    public init(type: AttestationType, trustPath: [[UInt8]] = [], format: String? = nil) {
        self.type = type
        self.trustPath = trustPath
        self.format = format
    }
}
