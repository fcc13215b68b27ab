/// The error every verification step throws: a ``Code`` callers can match and a message that says
/// which check failed and with what value.
public struct WebAuthnError: Error, Sendable, CustomStringConvertible {
    /// What kind of check failed. New codes may be added; match the ones you care about.
    public typealias Code = ErrorCode<WebAuthnError>

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

extension ErrorCode where Domain == WebAuthnError {
    /// CBOR that is malformed, too large, too deep, indefinite-length or has duplicate map keys.
    public static var malformedCBOR: Self { Self("malformedCBOR") }
    /// A required member is missing or has the wrong type or encoding.
    public static var malformedInput: Self { Self("malformedInput") }
    /// clientDataJSON is not JSON or lacks a member.
    public static var malformedClientData: Self { Self("malformedClientData") }
    /// clientDataJSON.type is not the ceremony's.
    public static var wrongCeremonyType: Self { Self("wrongCeremonyType") }
    /// clientDataJSON.challenge is not the challenge issued for this ceremony.
    public static var challengeMismatch: Self { Self("challengeMismatch") }
    /// clientDataJSON.origin is not one of the relying party's origins.
    public static var originMismatch: Self { Self("originMismatch") }
    /// crossOrigin or topOrigin used where the policy forbids it.
    public static var crossOriginNotAllowed: Self { Self("crossOriginNotAllowed") }
    /// tokenBinding present but malformed.
    public static var invalidTokenBinding: Self { Self("invalidTokenBinding") }
    /// Authenticator data is truncated, has leftover bytes, or contradicts its flags.
    public static var malformedAuthenticatorData: Self { Self("malformedAuthenticatorData") }
    /// rpIdHash is not the SHA-256 of an accepted RP ID.
    public static var rpIDMismatch: Self { Self("rpIDMismatch") }
    /// UP is clear where presence is required.
    public static var userNotPresent: Self { Self("userNotPresent") }
    /// UV is clear while user verification was required.
    public static var userNotVerified: Self { Self("userNotVerified") }
    /// BS set while BE is clear, or a backup policy refused the flags.
    public static var invalidBackupFlags: Self { Self("invalidBackupFlags") }
    /// A registration's authenticator data carries no credential (AT clear).
    public static var missingAttestedCredentialData: Self { Self("missingAttestedCredentialData") }
    /// A public key is malformed, off its curve, too short, or unfit for its algorithm.
    public static var malformedPublicKey: Self { Self("malformedPublicKey") }
    /// An algorithm Latchkey cannot verify (ML-DSA on OpenSSL 3.0, unknown identifiers).
    public static var unsupportedAlgorithm: Self { Self("unsupportedAlgorithm") }
    /// The credential's algorithm is not one the relying party offered.
    public static var algorithmNotAllowed: Self { Self("algorithmNotAllowed") }
    /// A signature does not verify with the key it must be checked against.
    public static var invalidSignature: Self { Self("invalidSignature") }
    /// An attestation `fmt` Latchkey does not know (or ECDAA).
    public static var unsupportedAttestationFormat: Self { Self("unsupportedAttestationFormat") }
    /// An attestation statement is malformed or fails one of its format's checks.
    public static var invalidAttestationStatement: Self { Self("invalidAttestationStatement") }
    /// A certificate is malformed or misses a requirement of its attestation format.
    public static var invalidCertificate: Self { Self("invalidCertificate") }
    /// The attestation chain does not lead to a configured trust anchor, or policy refuses its type.
    public static var untrustedAttestation: Self { Self("untrustedAttestation") }
    /// userHandle is missing where required, or names another user than the credential's owner.
    public static var userHandleMismatch: Self { Self("userHandleMismatch") }
    /// The signature counter did not increase: a possible cloned authenticator.
    public static var signCountRegression: Self { Self("signCountRegression") }
    /// OpenSSL failed for a reason unrelated to the input.
    public static var cryptoFailure: Self { Self("cryptoFailure") }
}
