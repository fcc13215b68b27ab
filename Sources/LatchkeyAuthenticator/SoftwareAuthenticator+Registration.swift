import Foundation
import WebAuthn

extension SoftwareAuthenticator {
    /// Answers creation options (the reply of `POST /attestation/options`) as
    /// `authenticatorMakeCredential` would: a new key pair of `algorithm` (by default the first
    /// offered in `pubKeyCredParams` that this authenticator makes), stored in the keys file, and
    /// the `RegistrationResponseJSON` line for `POST /attestation/result`.
    public func register(options bytes: [UInt8], algorithm requested: CredentialAlgorithm? = nil,
                         attestation requestedAttestation: Attestation? = nil, now: Date = Date()) throws -> [UInt8] {
        let options = try Self.decodeOptions(CreationOptions.self, from: bytes, endpoint: "/attestation/options")
        // Unless told otherwise, a statement when the options ask for one (self attestation is
        // all this authenticator can give), none otherwise.
        let attestation = requestedAttestation ?? ([nil, "none"].contains(options.attestation) ? .none : .packed)
        // §5.1.3 step 8: the RP ID is the origin's host or a registrable suffix of it.
        let rpID = try origin.relyingPartyID(options.rp.id, member: "rp.id")
        if options.authenticatorSelection?.authenticatorAttachment == "cross-platform" {
            throw AuthenticatorError(.unsupportedRequirement, "the options ask for a cross-platform authenticator (authenticatorSelection.authenticatorAttachment); this one is a platform authenticator")
        }
        let algorithm = try Self.chooseAlgorithm(options.pubKeyCredParams, requested: requested)

        var keys = try KeyFile.load(from: keyFilePath)
        // §6.3.2 step 3: a credential this authenticator holds is excluded for this RP.
        let excluded = Set((options.excludeCredentials ?? []).filter { $0.type == "public-key" }.map(\.id.bytes))
        if let held = keys.credentials.first(where: { $0.rpID == rpID && excluded.contains($0.id) }) {
            throw AuthenticatorError(.credentialExcluded, "credential \(held.shortID) of \(held.username.debugDescription) in \(keyFilePath) is listed in excludeCredentials: this authenticator already holds a passkey for this account")
        }

        let key = try CredentialPrivateKey.generate(algorithm)
        let credentialID = try SecureRandom.bytes(count: 16)
        let publicKey = COSEPublicKey.encode(try key.publicKeyParts(), algorithm: algorithm.coseAlgorithm)
        let authenticatorData = AuthenticatorDataBytes.make(
            rpID: rpID, flags: Self.flags.union(.attestedCredentialData), signCount: 0,
            attested: .init(aaguid: Self.aaguid, credentialID: credentialID, publicKey: publicKey))
        let clientDataJSON = ClientDataJSON.serialize(type: "webauthn.create", challenge: options.challenge.bytes, origin: origin.serialized)
        let attestationObject = try Self.attestationObject(
            attestation, authenticatorData: authenticatorData, clientDataHash: Digest.sha256(clientDataJSON), key: key)

        let reply = try RegistrationResponseJSON(
            id: Base64URLBytes(credentialID), rawId: Base64URLBytes(credentialID),
            response: .init(
                clientDataJSON: Base64URLBytes(clientDataJSON), authenticatorData: Base64URLBytes(authenticatorData),
                transports: Self.transports, publicKey: Base64URLBytes(key.subjectPublicKeyInfo()),
                publicKeyAlgorithm: algorithm.coseAlgorithm.rawValue, attestationObject: Base64URLBytes(attestationObject)),
            authenticatorAttachment: Self.attachment,
            clientExtensionResults: .init(credProps: .init(rk: true))
        ).jsonLine()

        keys.credentials.append(StoredCredential(
            id: credentialID, rpID: rpID, userHandle: options.user.id.bytes, username: options.user.name,
            displayName: options.user.displayName ?? options.user.name, algorithm: algorithm,
            privateKey: try key.pem(), signCount: 0, createdAt: now))
        try keys.save(to: keyFilePath)
        return reply
    }

    /// §5.1.3 step 10: the offered algorithms in the RP's order, ES256 and RS256 when none are
    /// listed; `requested` must be among them, else the first this authenticator makes is used.
    static func chooseAlgorithm(_ parameters: [CreationOptions.CredentialParameters], requested: CredentialAlgorithm?) throws -> CredentialAlgorithm {
        let offered = parameters.isEmpty
            ? [COSEAlgorithm.es256, .rs256]
            : parameters.filter { $0.type == "public-key" }.map { COSEAlgorithm(rawValue: $0.alg) }
        let offeredNames = offered.isEmpty ? "nothing" : offered.map(\.name).joined(separator: ", ")
        if let requested {
            guard offered.contains(requested.coseAlgorithm) else {
                throw AuthenticatorError(.unsupportedAlgorithm, "unsupported algorithm: \(requested.rawValue) is not in pubKeyCredParams, which offers \(offeredNames)")
            }
            return requested
        }
        guard let algorithm = offered.lazy.compactMap(CredentialAlgorithm.init(coseAlgorithm:)).first else {
            let made = CredentialAlgorithm.allCases.map(\.rawValue).joined(separator: ", ")
            throw AuthenticatorError(.unsupportedAlgorithm, "unsupported algorithm: pubKeyCredParams offers \(offeredNames); this authenticator makes \(made)")
        }
        return algorithm
    }

    /// The attestation object (§6.5.4): `fmt`, `attStmt`, `authData`, in CTAP2 canonical order.
    static func attestationObject(_ attestation: Attestation, authenticatorData: [UInt8], clientDataHash: [UInt8], key: CredentialPrivateKey) throws -> [UInt8] {
        let statement: [CBORMapEntry]
        switch attestation {
        case .none:
            statement = []
        case .packed:
            // §8.2 self attestation: the credential key signs authenticatorData ‖ clientDataHash.
            let signature = try key.sign(authenticatorData + clientDataHash)
            statement = [
                CBORMapEntry(key: .text("alg"), value: .integer(key.algorithm.coseAlgorithm.rawValue)),
                CBORMapEntry(key: .text("sig"), value: .bytes(signature)),
            ]
        }
        return CBOREncoder.encode(.map([
            CBORMapEntry(key: .text("fmt"), value: .text(attestation.rawValue)),
            CBORMapEntry(key: .text("attStmt"), value: .map(statement)),
            CBORMapEntry(key: .text("authData"), value: .bytes(authenticatorData)),
        ]))
    }
}
