import LatchkeyService
import WebAuthn

/// The checks both result bodies share once decoded: binary members present, `rawId` equal to `id`.
enum CredentialChecks {
    /// `member` must hold at least one byte.
    static func required(_ value: Base64URLBytes, _ member: String) throws -> [UInt8] {
        guard !value.bytes.isEmpty else { throw APIError.badRequest("\(member) is empty") }
        return value.bytes
    }

    /// The credential ID, which `rawId` must repeat when sent: 1 to 1023 bytes (WebAuthn §5.8.3).
    static func credentialID(id: Base64URLBytes, rawId: Base64URLBytes?) throws -> [UInt8] {
        let bytes = try required(id, "id")
        guard bytes.count <= AuthenticatorData.maximumCredentialIDLength else {
            throw APIError.badRequest("id is \(bytes.count) bytes; a credential ID is at most \(AuthenticatorData.maximumCredentialIDLength) bytes")
        }
        if let rawId, rawId.bytes != bytes {
            throw APIError.badRequest("rawId does not match id")
        }
        return bytes
    }
}
