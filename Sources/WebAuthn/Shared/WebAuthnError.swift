/// The error every verification step throws: a ``Code`` callers can match and a message that says
/// which check failed and with what value.
public struct WebAuthnError: Error, Sendable, CustomStringConvertible {
    /// What kind of check failed. New codes may be added; match the ones you care about.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// CBOR that is malformed, too large, too deep, indefinite-length or has duplicate map keys.
        public static let malformedCBOR = Code("malformedCBOR")
        /// A required member is missing or has the wrong type or encoding.
        public static let malformedInput = Code("malformedInput")
        /// clientDataJSON is not JSON or lacks a member.
        public static let malformedClientData = Code("malformedClientData")
        /// clientDataJSON.type is not the ceremony's.
        public static let wrongCeremonyType = Code("wrongCeremonyType")
        public static let challengeMismatch = Code("challengeMismatch")
        public static let originMismatch = Code("originMismatch")
        /// crossOrigin or topOrigin used where the policy forbids it.
        public static let crossOriginNotAllowed = Code("crossOriginNotAllowed")
        /// tokenBinding present but malformed.
        public static let invalidTokenBinding = Code("invalidTokenBinding")
        public static let malformedAuthenticatorData = Code("malformedAuthenticatorData")
        public static let rpIDMismatch = Code("rpIDMismatch")
        public static let userNotPresent = Code("userNotPresent")
        public static let userNotVerified = Code("userNotVerified")
        /// BS set while BE is clear, or a backup policy refused the flags.
        public static let invalidBackupFlags = Code("invalidBackupFlags")
        public static let missingAttestedCredentialData = Code("missingAttestedCredentialData")
        public static let malformedPublicKey = Code("malformedPublicKey")
        public static let unsupportedAlgorithm = Code("unsupportedAlgorithm")
        /// The credential's algorithm is not one the relying party offered.
        public static let algorithmNotAllowed = Code("algorithmNotAllowed")
        public static let invalidSignature = Code("invalidSignature")
        public static let unsupportedAttestationFormat = Code("unsupportedAttestationFormat")
        public static let invalidAttestationStatement = Code("invalidAttestationStatement")
        public static let invalidCertificate = Code("invalidCertificate")
        /// The attestation chain does not lead to a configured trust anchor, or policy refuses its type.
        public static let untrustedAttestation = Code("untrustedAttestation")
        public static let userHandleMismatch = Code("userHandleMismatch")
        /// The signature counter did not increase: a possible cloned authenticator.
        public static let signCountRegression = Code("signCountRegression")
        /// OpenSSL failed for a reason unrelated to the input.
        public static let cryptoFailure = Code("cryptoFailure")
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
