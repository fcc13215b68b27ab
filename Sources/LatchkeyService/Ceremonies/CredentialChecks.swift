import WebAuthn

/// The checks both result bodies share once decoded: binary members present, `rawId` equal to `id`.
package enum CredentialChecks {
    /// `member` must hold at least one byte.
    package static func required(_ value: Base64URLBytes, _ member: String) throws -> [UInt8] {
        guard !value.bytes.isEmpty else { throw ServiceError.invalid("\(member) is empty") }
        return value.bytes
    }

    /// The credential ID, which `rawId` must repeat when sent: 1 to 1023 bytes (WebAuthn §5.8.3).
    package static func credentialID(id: Base64URLBytes, rawId: Base64URLBytes?) throws -> [UInt8] {
        let bytes = try required(id, "id")
        guard bytes.count <= AuthenticatorData.maximumCredentialIDLength else {
            throw ServiceError.invalid("id is \(bytes.count) bytes; a credential ID is at most \(AuthenticatorData.maximumCredentialIDLength) bytes")
        }
        if let rawId, rawId.bytes != bytes {
            throw ServiceError.invalid("rawId does not match id")
        }
        return bytes
    }
}
