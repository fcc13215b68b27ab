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
        /// clientDataJSON.challenge is not the challenge issued for this ceremony.
        public static let challengeMismatch = Code("challengeMismatch")
        /// clientDataJSON.origin is not one of the relying party's origins.
        public static let originMismatch = Code("originMismatch")
        /// crossOrigin or topOrigin used where the policy forbids it.
        public static let crossOriginNotAllowed = Code("crossOriginNotAllowed")
        /// tokenBinding present but malformed.
        public static let invalidTokenBinding = Code("invalidTokenBinding")
        /// Authenticator data is truncated, has leftover bytes, or contradicts its flags.
        public static let malformedAuthenticatorData = Code("malformedAuthenticatorData")
        /// rpIdHash is not the SHA-256 of an accepted RP ID.
        public static let rpIDMismatch = Code("rpIDMismatch")
        /// UP is clear where presence is required.
        public static let userNotPresent = Code("userNotPresent")
        /// UV is clear while user verification was required.
        public static let userNotVerified = Code("userNotVerified")
        /// BS set while BE is clear, or a backup policy refused the flags.
        public static let invalidBackupFlags = Code("invalidBackupFlags")
        /// A registration's authenticator data carries no credential (AT clear).
        public static let missingAttestedCredentialData = Code("missingAttestedCredentialData")
        /// A public key is malformed, off its curve, too short, or unfit for its algorithm.
        public static let malformedPublicKey = Code("malformedPublicKey")
        /// An algorithm Latchkey cannot verify (ML-DSA on OpenSSL 3.0, unknown identifiers).
        public static let unsupportedAlgorithm = Code("unsupportedAlgorithm")
        /// The credential's algorithm is not one the relying party offered.
        public static let algorithmNotAllowed = Code("algorithmNotAllowed")
        /// A signature does not verify with the key it must be checked against.
        public static let invalidSignature = Code("invalidSignature")
        /// An attestation `fmt` Latchkey does not know (or ECDAA).
        public static let unsupportedAttestationFormat = Code("unsupportedAttestationFormat")
        /// An attestation statement is malformed or fails one of its format's checks.
        public static let invalidAttestationStatement = Code("invalidAttestationStatement")
        /// A certificate is malformed or misses a requirement of its attestation format.
        public static let invalidCertificate = Code("invalidCertificate")
        /// The attestation chain does not lead to a configured trust anchor, or policy refuses its type.
        public static let untrustedAttestation = Code("untrustedAttestation")
        /// userHandle is missing where required, or names another user than the credential's owner.
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
