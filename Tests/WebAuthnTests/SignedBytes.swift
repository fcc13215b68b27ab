@testable import WebAuthn

/// Which bytes of a real registration its attestation covers, so a mutation test can demand that
/// changing any of them is refused. A flip elsewhere (CBOR framing, unsigned authenticator data
/// members) only has to get a verdict.
enum SignedBytes {
    /// Formats whose statement covers all of authenticatorData ‖ clientDataHash: a signature over
    /// them (packed, android-key), or a signed nonce or extraData that is their hash (apple,
    /// android-safetynet, tpm).
    static let wholeAuthenticatorData: Set<String> = ["packed", "tpm", "android-key", "android-safetynet", "apple"]

    /// Offsets within the authenticator data that `format` covers; empty for formats that sign
    /// nothing (`none`). fido-u2f signs 0x00 ‖ rpIdHash ‖ clientDataHash ‖ credentialId ‖ the key's
    /// uncompressed point (FIDO U2F raw message formats), so flags, counter, AAGUID and the COSE
    /// framing around x and y are not signed.
    static func authenticatorData(format: String, _ bytes: [UInt8]) -> [Range<Int>] {
        if wholeAuthenticatorData.contains(format) { return [0..<bytes.count] }
        guard format == "fido-u2f", bytes.count > 55 else { return [] }
        let idLength = Int(bytes[53]) << 8 | Int(bytes[54])
        let keyStart = 55 + idLength
        var ranges = [0..<32, 55..<keyStart]
        // x (-2) and y (-3) as CBOR: the label, a 32-byte byte-string head, then the coordinate.
        var searchFrom = keyStart
        for label: UInt8 in [0x21, 0x22] {
            if let head = bytes[searchFrom...].firstRange(of: [label, 0x58, 0x20]), head.upperBound + 32 <= bytes.count {
                ranges.append(head.upperBound..<head.upperBound + 32)
                searchFrom = head.upperBound + 32
            }
        }
        return ranges
    }

    /// Whether `format` covers clientDataJSON (through clientDataHash); `none` does not.
    static func coversClientData(format: String) -> Bool {
        wholeAuthenticatorData.contains(format) || format == "fido-u2f"
    }

    /// Where the authenticator data sits inside an attestation object: after the `authData` key's
    /// byte-string head, found as the one place those bytes occur.
    static func authenticatorDataOffset(in attestationObject: [UInt8]) -> (offset: Int, bytes: [UInt8])? {
        guard let object = try? CBORDecoder().decode(attestationObject),
              let authData = object[textKey: "authData"]?.byteString,
              let range = attestationObject.firstRange(of: authData) else { return nil }
        return (range.lowerBound, authData)
    }
}
