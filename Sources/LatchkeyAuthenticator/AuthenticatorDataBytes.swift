import WebAuthn

/// Builds authenticator data (WebAuthn §6.1): rpIdHash ‖ flags ‖ signCount, then the attested
/// credential data (§6.5.2) when a credential is being created.
enum AuthenticatorDataBytes {
    /// The attested credential data of a new credential.
    struct AttestedCredential {
        var aaguid: [UInt8]
        var credentialID: [UInt8]
        var publicKey: [UInt8]
    }

    static func make(rpID: String, flags: AuthenticatorFlags, signCount: UInt32, attested: AttestedCredential? = nil) -> [UInt8] {
        var bytes = Digest.sha256(Array(rpID.utf8))
        bytes.append(flags.rawValue)
        bytes += bigEndian(signCount)
        if let attested {
            bytes += attested.aaguid
            bytes += [UInt8(attested.credentialID.count >> 8), UInt8(attested.credentialID.count & 0xFF)]
            bytes += attested.credentialID
            bytes += attested.publicKey
        }
        return bytes
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
    }
}
