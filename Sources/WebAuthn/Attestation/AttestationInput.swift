import Foundation

/// The inputs every attestation statement format verifies against (WebAuthn §8).
public struct AttestationInput: Sendable {
    public let statement: CBORValue
    public let authenticatorData: AuthenticatorData
    public let clientDataHash: [UInt8]
    public let credentialKey: COSEKey
    /// The time to judge time-bound evidence at (certificate validity, SafetyNet timestamps); nil is now.
    public let verificationTime: Date?
    /// Whether SHA-1 based signatures (RS1) are accepted, per ``AttestationPolicy/allowSHA1``.
    public let allowSHA1: Bool

    public init(statement: CBORValue, authenticatorData: AuthenticatorData, clientDataHash: [UInt8], credentialKey: COSEKey, verificationTime: Date? = nil, allowSHA1: Bool = false) {
        self.statement = statement
        self.authenticatorData = authenticatorData
        self.clientDataHash = clientDataHash
        self.credentialKey = credentialKey
        self.verificationTime = verificationTime
        self.allowSHA1 = allowSHA1
    }

    /// The bytes attestation signatures cover: authenticatorData ‖ clientDataHash.
    public var signedBytes: [UInt8] { authenticatorData.bytes + clientDataHash }

    /// The verification time, or now.
    public var now: Date { verificationTime ?? Date() }

    /// Refuses an attestation signature algorithm the policy does not accept (RS1 unless allowed).
    public func checkSignatureAlgorithm(_ algorithm: COSEAlgorithm) throws {
        if algorithm == .rs1, !allowSHA1 {
            throw WebAuthnError(.algorithmNotAllowed, "RS1 (SHA-1) attestation signatures are refused; enable allowSHA1 to accept them")
        }
    }
}
