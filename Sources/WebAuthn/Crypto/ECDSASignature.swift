/// ECDSA signature encodings: JWS (RFC 7518 §3.4) writes `r ‖ s` as two fixed-length big-endian
/// integers, while OpenSSL verifies the DER `SEQUENCE { INTEGER r, INTEGER s }` of X9.62.
public enum ECDSASignature {
    /// Converts a raw `r ‖ s` signature whose halves are `coordinateLength` bytes each to DER.
    /// Throws ``WebAuthnError/Code/invalidSignature`` when the length is wrong or r or s is zero.
    public static func der(fromRaw raw: [UInt8], coordinateLength: Int) throws -> [UInt8] {
        guard coordinateLength > 0, raw.count == 2 * coordinateLength else {
            throw WebAuthnError(.invalidSignature, "raw ECDSA signature is \(raw.count) bytes, expected \(2 * max(coordinateLength, 0))")
        }
        let r = try integer(raw[0..<coordinateLength], name: "r")
        let s = try integer(raw[coordinateLength...], name: "s")
        return [0x30] + length(r.count + s.count) + r + s
    }

    /// Converts a DER `SEQUENCE { INTEGER r, INTEGER s }` to raw `r ‖ s`, each half left-padded to
    /// `coordinateLength` bytes (what JWS carries). Throws ``WebAuthnError/Code/invalidSignature``
    /// for anything else.
    public static func raw(fromDER der: [UInt8], coordinateLength: Int) throws -> [UInt8] {
        var reader = DERReader(der)
        let sequence = try reader.read()
        let parts = try sequence.children()
        guard reader.isAtEnd, sequence.tag == 0x30, parts.count == 2, parts.allSatisfy({ $0.tag == 0x02 }) else {
            throw WebAuthnError(.invalidSignature, "an ECDSA signature is not SEQUENCE { INTEGER r, INTEGER s }")
        }
        var raw: [UInt8] = []
        for part in parts {
            let value = part.content.drop(while: { $0 == 0 })
            guard value.count <= coordinateLength else {
                throw WebAuthnError(.invalidSignature, "an ECDSA signature value is longer than \(coordinateLength) bytes")
            }
            raw += [UInt8](repeating: 0, count: coordinateLength - value.count) + value
        }
        return raw
    }

    /// A DER INTEGER holding the unsigned big-endian `bytes`: minimal, with a 0x00 before a set high bit.
    private static func integer(_ bytes: ArraySlice<UInt8>, name: String) throws -> [UInt8] {
        var content = Array(bytes.drop(while: { $0 == 0 }))
        guard !content.isEmpty else {
            throw WebAuthnError(.invalidSignature, "ECDSA signature value \(name) is zero")
        }
        if content[0] & 0x80 != 0 { content.insert(0, at: 0) }
        return [0x02] + length(content.count) + content
    }

    /// A DER definite length.
    private static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}
