/// Verifies an App Attest assertion (`DCAppAttestService.generateAssertion`): the device's ECDSA
/// signature over nonce = SHA-256(authenticatorData ‖ clientDataHash) (the 32-byte nonce is the
/// signed message, so the signature's own digest is SHA-256 of it), the RP ID hash of one of the
/// relying party's apps, and a counter the key's ``AppAttestCounters`` still admit. The caller stores the
/// new window with a compare-and-set, so that of two racing assertions with one counter one wins.
public struct AppAttestAssertionVerifier: Sendable {
    /// The apps' IDs, `TEAMID.bundle.id` (``AppleAppID`` says what is wrong with one).
    public let appIDs: [String]

    public init(appIDs: [String]) {
        self.appIDs = appIDs
    }

    /// Returns the assertion's counter, which `counters` admit (``AppAttestCounters/accepting(_:)``).
    public func verify(assertion: [UInt8], publicKey point: [UInt8], clientDataHash: [UInt8], counters: AppAttestCounters) throws -> UInt32 {
        let object: CBORValue
        do {
            object = try CBORDecoder().decode(assertion)
        } catch let error as WebAuthnError {
            throw WebAuthnError(error.code, "App Attest assertion: \(error.message)")
        }
        guard let signature = object[textKey: "signature"]?.byteString, let data = object[textKey: "authenticatorData"]?.byteString else {
            throw WebAuthnError(.malformedInput, "App Attest assertion: signature or authenticatorData is missing")
        }
        let authenticatorData = try AppAttestAuthenticatorData(data, withCredential: false)
        guard point.count == 65, point[0] == 0x04 else {
            throw WebAuthnError(.malformedPublicKey, "App Attest key is not an uncompressed P-256 point")
        }
        let key = try PublicKey.elliptic(curve: .p256, x: Array(point[1..<33]), y: Array(point[33..<65]))
        let nonce = Digest.sha256(data + clientDataHash)
        do {
            try key.verify(signature: signature, over: nonce, algorithm: .es256)
        } catch let error as WebAuthnError where error.code == .invalidSignature {
            throw WebAuthnError(
                .invalidSignature, "App Attest assertion: the signature does not verify with the attested key over this client data")
        }
        guard appIDs.contains(where: { constantTimeEquals(Digest.sha256(Array($0.utf8)), authenticatorData.rpIDHash) }) else {
            throw WebAuthnError(.rpIDMismatch, "App Attest assertion: the RP ID hash is not the SHA-256 of \(appIDs.joined(separator: " or "))")
        }
        guard counters.accepting(authenticatorData.counter) != nil else {
            throw WebAuthnError(.signCountRegression, counters.refusal(of: authenticatorData.counter))
        }
        return authenticatorData.counter
    }
}
