/// The `fido-u2f` format (WebAuthn §8.6): a FIDO U2F (CTAP1) registration signature by the
/// authenticator's attestation key, whose single certificate is carried in `x5c`.
/// Chains to trust anchors are judged separately; this checks the statement and the leaf.
public struct FIDOU2FAttestation: AttestationFormat {
    public let identifier = "fido-u2f"
    public init() {}

    public func verify(_ input: AttestationInput) throws -> AttestationResult {
        // §8.6 step 1: attStmt is valid CBOR with x5c and sig.
        let statement = try AttestationStatement(input.statement, format: identifier)
        let signature = try statement.bytes("sig")
        let x5c = try statement.certificateChain()
        // §8.6 step 2: x5c holds exactly one certificate, whose key is an EC key on P-256.
        guard x5c.count == 1 else {
            throw WebAuthnError(.invalidAttestationStatement, "fido-u2f attStmt.x5c holds \(x5c.count) certificates; exactly 1 is required")
        }
        let certificate = x5c[0]
        let certificateKey = try certificate.publicKey()
        guard certificateKey.isP256 else {
            let kind = certificateKey.ellipticGroupName.map { "EC \($0)" } ?? certificateKey.typeName
            throw WebAuthnError(.invalidCertificate, "fido-u2f attestation certificate key is \(kind), not EC P-256")
        }

        // §8.6 step 3: rpIdHash, credentialId and credentialPublicKey from the authenticator data.
        guard let attested = input.authenticatorData.attestedCredentialData else {
            throw WebAuthnError(.missingAttestedCredentialData, "fido-u2f authenticator data carries no attested credential data")
        }
        // Not a §8.6 step: the AAGUID must be all zero (FIDO conformance Resp-8 F-1). A U2F
        // authenticator has no AAGUID, and the U2F signature below does not cover the AAGUID bytes,
        // so any other value is unauthenticated: accepting it would let anyone who relays the
        // registration choose which authenticator model the AAGUID allow/deny lists and metadata
        // lookups see. Latchkey therefore refuses the W3C L3 vector w3c-fido-u2f-es256-reg (non-zero
        // AAGUID, expected to pass by W3C, which has no such check); see the vectors' "Disputed" notes.
        guard attested.aaguid.allSatisfy({ $0 == 0 }) else {
            throw WebAuthnError(.invalidAttestationStatement, "fido-u2f authenticator data AAGUID is \(AAGUID.string(attested.aaguid)); U2F attestation requires the all-zero AAGUID, since the U2F signature does not cover it")
        }

        // §8.6 step 4: the credential key as an uncompressed ANSI X9.62 P-256 point.
        let coseKey = attested.publicKey
        guard input.credentialKey.keyType == .ec2, coseKey[intKey: 1]?.int64 == COSEKey.KeyType.ec2.rawValue else {
            throw WebAuthnError(.invalidAttestationStatement, "fido-u2f credential key is COSE key type \(input.credentialKey.keyType), not EC2")
        }
        guard let curve = coseKey[intKey: -1]?.int64, curve == EllipticCurve.p256.rawValue else {
            throw WebAuthnError(.invalidAttestationStatement, "fido-u2f credential key crv is \(coseKey[intKey: -1]?.int64.map(String.init) ?? "missing"), not P-256 (1)")
        }
        guard let x = coseKey[intKey: -2]?.byteString, let y = coseKey[intKey: -3]?.byteString, x.count == 32, y.count == 32 else {
            throw WebAuthnError(.invalidAttestationStatement, "fido-u2f credential key needs 32-byte x (-2) and y (-3) coordinates")
        }
        let publicKeyU2F = [0x04] + x + y

        // §8.6 step 5: verificationData = 0x00 ‖ rpIdHash ‖ clientDataHash ‖ credentialId ‖ publicKeyU2F.
        let verificationData = [0x00] + input.authenticatorData.rpIDHash + input.clientDataHash + attested.credentialID + publicKeyU2F

        // §8.6 step 6: sig is an ECDSA P-256 SHA-256 signature over verificationData by the certificate key.
        do {
            try certificateKey.verify(signature: signature, over: verificationData, algorithm: .es256)
        } catch let error as WebAuthnError where error.code == .invalidSignature {
            throw WebAuthnError(.invalidSignature, "fido-u2f attStmt.sig does not verify over the U2F registration data with the attestation certificate key")
        }

        // §8.6 step 8: Basic (or AttCA, which cannot be told apart here) with trust path x5c.
        return AttestationResult(type: .basic, certificates: x5c)
    }
}
