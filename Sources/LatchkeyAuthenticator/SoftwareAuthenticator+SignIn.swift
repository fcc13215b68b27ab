import WebAuthn

extension SoftwareAuthenticator {
    /// Answers request options (the reply of `POST /assertion/options`) as
    /// `authenticatorGetAssertion` would: with a credential of the RP ID that `allowCredentials`
    /// lists, or when it is empty any discoverable one (usernameless sign-in), narrowed to
    /// `username` when given and the most recently created when several remain. Advances that
    /// credential's counter in the keys file and returns the `AuthenticationResponseJSON` line
    /// for `POST /assertion/result`.
    public func signIn(options bytes: [UInt8], username: String? = nil) throws -> [UInt8] {
        let options = try Self.decodeOptions(RequestOptions.self, from: bytes, endpoint: "/assertion/options")
        // §5.1.4.1 step 7: the RP ID is the origin's host or a registrable suffix of it.
        let rpID = try origin.relyingPartyID(options.rpId, member: "rpId")
        var keys = try KeyFile.load(from: keyFilePath)
        let index = try chooseCredential(in: keys, rpID: rpID, options: options, username: username)
        var credential = keys.credentials[index]

        let key: CredentialPrivateKey
        do {
            key = try CredentialPrivateKey(pem: credential.privateKey, algorithm: credential.algorithm)
        } catch let error as AuthenticatorError {
            throw AuthenticatorError(error.code, "keys file \(keyFilePath): credential \(credential.shortID): \(error.message)")
        }
        guard credential.signCount < UInt32.max else {
            throw AuthenticatorError(.noMatchingCredential, "credential \(credential.shortID) in \(keyFilePath) has used up its signature counter")
        }
        credential.signCount += 1
        let authenticatorData = AuthenticatorDataBytes.make(rpID: rpID, flags: Self.flags, signCount: credential.signCount)
        let clientDataJSON = ClientDataJSON.serialize(type: "webauthn.get", challenge: options.challenge.bytes, origin: origin.serialized)
        // §6.3.3 step 11: the signature over authenticatorData ‖ SHA-256(clientDataJSON).
        let signature = try key.sign(authenticatorData + Digest.sha256(clientDataJSON))

        let reply = try AuthenticationResponseJSON(
            id: Base64URLBytes(credential.id), rawId: Base64URLBytes(credential.id),
            response: .init(
                clientDataJSON: Base64URLBytes(clientDataJSON), authenticatorData: Base64URLBytes(authenticatorData),
                signature: Base64URLBytes(signature), userHandle: Base64URLBytes(credential.userHandle)),
            authenticatorAttachment: Self.attachment
        ).jsonLine()
        keys.credentials[index] = credential
        try keys.save(to: keyFilePath)
        return reply
    }

    /// The index in `keys` of the credential that answers `options`.
    private func chooseCredential(in keys: KeyFile, rpID: String, options: RequestOptions, username: String?) throws -> Int {
        var candidates = keys.credentials.indices.filter { keys.credentials[$0].rpID == rpID }
        guard !candidates.isEmpty else {
            throw AuthenticatorError(.noMatchingCredential, "no matching credential: \(keyFilePath) holds no credential for RP ID \(rpID)")
        }
        let allowed = Set((options.allowCredentials ?? []).filter { $0.type == "public-key" }.map(\.id.bytes))
        if !allowed.isEmpty {
            candidates = candidates.filter { allowed.contains(keys.credentials[$0].id) }
            guard !candidates.isEmpty else {
                throw AuthenticatorError(.noMatchingCredential, "no matching credential: none of the \(allowed.count) credential(s) in allowCredentials is in \(keyFilePath)")
            }
        }
        if let username {
            candidates = candidates.filter { keys.credentials[$0].username == username }
            guard !candidates.isEmpty else {
                throw AuthenticatorError(.noMatchingCredential, "no matching credential: \(keyFilePath) holds no credential of user \(username.debugDescription) for RP ID \(rpID)\(allowed.isEmpty ? "" : " among allowCredentials")")
            }
        }
        // The most recently created; on equal times the later in the file.
        guard let chosen = candidates.max(by: { (keys.credentials[$0].createdAt, $0) < (keys.credentials[$1].createdAt, $1) }) else {
            throw AuthenticatorError(.noMatchingCredential, "no matching credential for RP ID \(rpID)")
        }
        return chosen
    }
}
