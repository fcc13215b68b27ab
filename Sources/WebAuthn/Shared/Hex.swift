/// Lowercase hexadecimal text of bytes: AAGUIDs, request IDs, values in error messages.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Two lowercase hexadecimal digits per byte, without separators.
    public static func lowercase(_ bytes: some Collection<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
