/// Parsed authenticator data (WebAuthn §6.1): RP ID hash, flags, counter, and the optional attested
/// credential data and extension outputs. Parsing fails on any byte that is not accounted for.
public struct AuthenticatorData: Sendable {
    /// The credential created in a registration (§6.5.1).
    public struct AttestedCredentialData: Sendable {
        public let aaguid: [UInt8]
        public let credentialID: [UInt8]
        /// The COSE_Key bytes exactly as the authenticator encoded them.
        public let publicKeyBytes: [UInt8]
        public let publicKey: CBORValue
    }

    /// The authenticator data bytes as received; signatures cover these.
    public let bytes: [UInt8]
    public let rpIDHash: [UInt8]
    public let flags: AuthenticatorFlags
    public let signCount: UInt32
    public let attestedCredentialData: AttestedCredentialData?
    /// The extension outputs map, when the ED flag is set.
    public let extensions: CBORValue?

    /// Longest credential ID accepted (§5.8.3 limits it to 1023 bytes).
    public static let maximumCredentialIDLength = 1023

    /// Parses authenticator data; throws ``WebAuthnError/Code/malformedAuthenticatorData`` (or
    /// ``WebAuthnError/Code/malformedCBOR``) for any length, flag or byte that does not add up.
    public init(_ bytes: [UInt8], decoder: CBORDecoder = CBORDecoder()) throws {
        guard bytes.count >= 37 else {
            throw WebAuthnError(.malformedAuthenticatorData, "authenticator data is \(bytes.count) bytes; at least 37 are needed")
        }
        self.bytes = bytes
        rpIDHash = Array(bytes[0..<32])
        flags = AuthenticatorFlags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37

        if flags.contains(.attestedCredentialData) {
            guard bytes.count >= offset + 18 else {
                throw WebAuthnError(.malformedAuthenticatorData, "AT flag is set but attested credential data is missing or truncated")
            }
            let aaguid = Array(bytes[offset..<offset + 16])
            let idLength = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard idLength > 0, idLength <= Self.maximumCredentialIDLength else {
                throw WebAuthnError(.malformedAuthenticatorData, "credential ID length \(idLength) is outside 1...\(Self.maximumCredentialIDLength)")
            }
            guard bytes.count >= offset + idLength else {
                throw WebAuthnError(.malformedAuthenticatorData, "credential ID of \(idLength) bytes runs past the end of authenticator data")
            }
            let credentialID = Array(bytes[offset..<offset + idLength])
            offset += idLength
            guard offset < bytes.count else {
                throw WebAuthnError(.malformedAuthenticatorData, "attested credential data has no public key")
            }
            let (publicKey, keyEnd) = try decoder.decodePrefix(bytes, from: offset)
            attestedCredentialData = AttestedCredentialData(
                aaguid: aaguid, credentialID: credentialID,
                publicKeyBytes: Array(bytes[offset..<keyEnd]), publicKey: publicKey)
            offset = keyEnd
        } else {
            attestedCredentialData = nil
        }

        if flags.contains(.extensionData) {
            guard offset < bytes.count else {
                throw WebAuthnError(.malformedAuthenticatorData, "ED flag is set but there are no extension outputs")
            }
            let (extensions, end) = try decoder.decodePrefix(bytes, from: offset)
            guard extensions.mapEntries != nil else {
                throw WebAuthnError(.malformedAuthenticatorData, "extension outputs are \(extensions.kindName), not a map")
            }
            self.extensions = extensions
            offset = end
        } else {
            extensions = nil
        }

        guard offset == bytes.count else {
            let what = flags.contains(.attestedCredentialData) || flags.contains(.extensionData)
                ? "after the data its flags announce" : "but neither AT nor ED is set"
            throw WebAuthnError(.malformedAuthenticatorData, "authenticator data has \(bytes.count - offset) leftover bytes \(what)")
        }
    }
}
