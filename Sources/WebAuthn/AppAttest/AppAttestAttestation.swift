import Foundation

/// A key that App Attest vouched for: it lives in the Secure Enclave of a genuine device, for
/// one of the relying party's apps.
public struct AppAttestedKey: Sendable, Equatable {
    /// SHA-256 of the public key: the key ID `DCAppAttestService` returns.
    public let keyID: [UInt8]
    /// The uncompressed P-256 point (`0x04 ‖ x ‖ y`).
    public let publicKey: [UInt8]
    /// The app (`TEAMID.bundle.id`) whose RP ID hash the data carried.
    public let appID: String
    public let environment: AppAttestEnvironment
    /// Apple's receipt, to keep for fraud-risk queries.
    public let receipt: [UInt8]
    /// The certificates, leaf first (DER).
    public let certificates: [[UInt8]]
}

/// Verifies an App Attest attestation object (`DCAppAttestService.attestKey`), following Apple's
/// "Validating apps that connect to your server": the `x5c` chain to the Apple App Attestation
/// Root CA (given as `anchors`, never taken from the request), the nonce extension
/// (1.2.840.113635.100.8.2) equal to SHA-256(authData ‖ clientDataHash), the key's SHA-256 equal
/// to the key ID and to the credential ID, the RP ID hash equal to SHA-256 of one of `appIDs`, a
/// counter of 0 and an AAGUID of an accepted environment.
///
/// `clientDataHash` is an input: the server's own flow derives it from its challenge, but apps
/// have been seen to pass the challenge itself (Apple's guide sample).
public struct AppAttestAttestationVerifier: Sendable {
    public static let format = "apple-appattest"
    /// The apps' IDs, `TEAMID.bundle.id` (``AppleAppID`` says what is wrong with one).
    public let appIDs: [String]
    public let environments: Set<AppAttestEnvironment>
    public let anchors: [X509Certificate]
    /// When the certificates must be valid; now when nil (tests of old samples set it).
    public let verificationTime: Date?

    public init(appIDs: [String], environments: Set<AppAttestEnvironment>, anchors: [X509Certificate], verificationTime: Date? = nil) {
        self.appIDs = appIDs
        self.environments = environments
        self.anchors = anchors
        self.verificationTime = verificationTime
    }

    public func verify(attestationObject: [UInt8], keyID: [UInt8], clientDataHash: [UInt8]) throws -> AppAttestedKey {
        func invalid(_ message: String) -> WebAuthnError { WebAuthnError(.invalidAttestationStatement, "App Attest attestation: \(message)") }
        let object = try CBORDecoder().decode(attestationObject)
        guard object[textKey: "fmt"]?.textString == Self.format else {
            throw WebAuthnError(.unsupportedAttestationFormat, "App Attest attestation: fmt is not \(Self.format)")
        }
        guard let statement = object[textKey: "attStmt"], statement.mapEntries != nil,
              let authDataBytes = object[textKey: "authData"]?.byteString
        else { throw invalid("attStmt or authData is missing") }
        guard let receiptItem = statement[textKey: "receipt"] else { throw invalid("attStmt has no receipt") }
        guard let receipt = receiptItem.byteString else { throw invalid("attStmt.receipt is not a byte string") }
        let chain = try AttestationStatement(statement, format: Self.format).certificateChain()

        // 1. The chain ends in Apple's root, at the verification time.
        try CertificateChain.verify(chain, anchors: anchors, at: verificationTime)
        let leaf = chain[0]

        // 2-4. nonce = SHA-256(authData ‖ clientDataHash), in the leaf's extension.
        let nonce = Digest.sha256(authDataBytes + clientDataHash)
        guard let (extensionValue, _) = leaf.extensionValue(oid: AppleAttestation.nonceExtensionOID) else {
            throw invalid("the leaf certificate has no nonce extension \(AppleAttestation.nonceExtensionOID)")
        }
        guard constantTimeEquals(try AppleAttestation.nonce(fromExtension: extensionValue), nonce) else {
            throw invalid("the nonce is not SHA-256(authData ‖ clientDataHash): the data or the client data hash differs")
        }

        // 5. The key ID is the SHA-256 of the leaf's public key.
        guard let point = try leaf.publicKey().uncompressedPoint, point.count == 65 else {
            throw invalid("the leaf certificate's key is not a P-256 key")
        }
        guard constantTimeEquals(Digest.sha256(point), keyID) else { throw invalid("the key ID is not the SHA-256 of the attested key") }

        // 6-9. RP ID hash, counter, environment, credential ID and key.
        let authenticatorData = try AppAttestAuthenticatorData(authDataBytes, withCredential: true)
        guard let appID = appIDs.first(where: { constantTimeEquals(Digest.sha256(Array($0.utf8)), authenticatorData.rpIDHash) }) else {
            throw WebAuthnError(.rpIDMismatch, "App Attest attestation: the RP ID hash is not the SHA-256 of \(appIDs.joined(separator: " or "))")
        }
        guard authenticatorData.counter == 0 else { throw invalid("the counter is \(authenticatorData.counter), not 0") }
        guard let environment = authenticatorData.aaguid.flatMap(AppAttestEnvironment.init(aaguid:)) else {
            throw invalid("the AAGUID is neither appattestdevelop nor appattest")
        }
        guard environments.contains(environment) else {
            throw invalid("the key was made in the \(environment.rawValue) environment, which this server does not accept")
        }
        guard let credentialID = authenticatorData.credentialID, constantTimeEquals(credentialID, keyID) else {
            throw invalid("the credential ID is not the key ID")
        }
        if let credentialKey = authenticatorData.credentialKey {
            guard try COSEKey(credentialKey).publicKey.isSameKey(as: try leaf.publicKey()) else {
                throw invalid("the credential key is not the certificate's key")
            }
        }
        return AppAttestedKey(
            keyID: keyID, publicKey: point, appID: appID, environment: environment, receipt: receipt, certificates: chain.map(\.der))
    }
}
