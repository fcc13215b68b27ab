extension X509Certificate {
    /// id-fido-gen-ce-aaguid: the AAGUID of the authenticator model an attestation certificate was
    /// issued for.
    static let fidoAAGUIDOID = "1.3.6.1.4.1.45724.1.1.4"

    /// The AAGUID this certificate names, when it carries id-fido-gen-ce-aaguid. Throws
    /// ``WebAuthnError/Code/invalidCertificate`` when the extension is critical or is not a 16-byte
    /// OCTET STRING (WebAuthn §8.2.1).
    func fidoAAGUID() throws -> [UInt8]? {
        guard let (value, critical) = extensionValue(oid: Self.fidoAAGUIDOID) else { return nil }
        guard !critical else {
            throw WebAuthnError(.invalidCertificate, "attestation certificate marks id-fido-gen-ce-aaguid critical")
        }
        guard value.count == 18, value[0] == 0x04, value[1] == 16 else {
            throw WebAuthnError(.invalidCertificate, "attestation certificate id-fido-gen-ce-aaguid is not a 16-byte OCTET STRING")
        }
        return Array(value[2...])
    }

    /// Checks that the AAGUID this certificate names, if any, is the one in authenticator data.
    func checkFIDOAAGUID(matches authenticatorData: AuthenticatorData, role: String) throws {
        guard let certified = try fidoAAGUID() else { return }
        let claimed = authenticatorData.attestedCredentialData?.aaguid
        guard certified == claimed else {
            throw WebAuthnError(.invalidCertificate, "\(role) AAGUID \(AAGUID.string(certified)) does not match the authenticator data AAGUID \(claimed.map(AAGUID.string) ?? "none")")
        }
    }
}
