/// Authenticator data as Apple's App Attest writes it: like WebAuthn's (§6.1) but with two quirks
/// real devices show, accepted exactly and nothing looser: an attestation may carry a CBOR
/// extension map after the credential key with the ED flag clear (Apple's own guide sample), and
/// an assertion has the AT flag set with no credential data after the counter (every device), at
/// most followed by one CBOR extension map.
public struct AppAttestAuthenticatorData: Sendable {
    public let bytes: [UInt8]
    public let rpIDHash: [UInt8]
    public let flags: AuthenticatorFlags
    public let counter: UInt32
    /// Attestations only: the AAGUID, the credential ID and the COSE key.
    public let aaguid: [UInt8]?
    public let credentialID: [UInt8]?
    public let credentialKey: CBORValue?

    /// Parses an attestation's authenticator data (with attested credential data) or an
    /// assertion's (without), as `withCredential` says.
    public init(_ bytes: [UInt8], withCredential: Bool, decoder: CBORDecoder = CBORDecoder()) throws {
        func malformed(_ what: String) -> WebAuthnError { WebAuthnError(.malformedAuthenticatorData, "App Attest authenticator data \(what)") }
        guard bytes.count >= 37 else { throw malformed("is \(bytes.count) bytes; at least 37 are needed") }
        self.bytes = bytes
        rpIDHash = Array(bytes[0..<32])
        flags = AuthenticatorFlags(rawValue: bytes[32])
        counter = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37
        if withCredential {
            guard bytes.count >= offset + 18 else { throw malformed("has no attested credential data") }
            aaguid = Array(bytes[offset..<offset + 16])
            let idLength = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard idLength > 0, bytes.count > offset + idLength else { throw malformed("has a credential ID that runs past its end") }
            credentialID = Array(bytes[offset..<offset + idLength])
            offset += idLength
            let (key, end) = try decoder.decodePrefix(bytes, from: offset)
            credentialKey = key
            offset = end
        } else {
            (aaguid, credentialID, credentialKey) = (nil, nil, nil)
        }
        // What may follow: one CBOR map of extensions, whatever the ED flag says.
        if offset < bytes.count {
            let (extensions, end) = try decoder.decodePrefix(bytes, from: offset)
            guard extensions.mapEntries != nil, end == bytes.count else {
                throw malformed("has \(bytes.count - offset) bytes after its data that are not one CBOR map")
            }
        }
    }
}
