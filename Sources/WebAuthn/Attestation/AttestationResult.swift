/// What verifying an attestation statement established.
public struct AttestationResult: Sendable {
    public let type: AttestationType
    /// The certificates the statement carried, leaf first; empty for none and self.
    public let certificates: [X509Certificate]
    /// The format whose statement produced this result when it is not the object's `fmt` (the chosen
    /// member of a compound statement); trust anchors are looked up under it.
    public var format: String?

    public init(type: AttestationType, certificates: [X509Certificate] = [], format: String? = nil) {
        self.type = type
        self.certificates = certificates
        self.format = format
    }

    /// The trust path as DER, leaf first, for storing with the credential.
    public var trustPath: [[UInt8]] { certificates.map(\.der) }
}
