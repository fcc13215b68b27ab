/// Base64url without padding (RFC 4648 §5), the encoding of every binary value in WebAuthn JSON.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    public static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            for shift in [18, 12, 6, 0] { output.append(alphabet[Int(chunk >> UInt32(shift) & 0x3F)]) }
            index += 3
        }
        let rest = input.count - index
        if rest > 0 {
            var chunk = UInt32(input[index]) << 16
            if rest == 2 { chunk |= UInt32(input[index + 1]) << 8 }
            let characters = rest == 1 ? 2 : 3
            for position in 0..<characters { output.append(alphabet[Int(chunk >> UInt32(18 - 6 * position) & 0x3F)]) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes base64url; trailing `=` padding is tolerated, any other character outside the
    /// base64url alphabet (including `+` and `/`) makes the result nil.
    public static func decode(_ text: String) -> [UInt8]? {
        var characters = Array(text.utf8)
        while characters.last == UInt8(ascii: "=") { characters.removeLast() }
        guard characters.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(characters.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for character in characters {
            let value = values[Int(character)]
            guard value != 0xFF else { return nil }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        // Leftover bits must be zero, so that each byte string has exactly one encoding.
        guard buffer & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return output
    }
}
