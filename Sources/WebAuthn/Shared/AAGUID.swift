import Foundation

/// An authenticator model's AAGUID (16 bytes), and its formatting.
public struct AAGUID: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// The AAGUID `text` writes in the dashed or plain hexadecimal form, or nil.
    public init?(_ text: String) {
        guard let bytes = Self.bytes(text) else { return nil }
        self.bytes = bytes
    }

    /// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, lowercase.
    public var description: String { Self.string(bytes) }

    /// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, lowercase.
    public static func string(_ bytes: [UInt8]) -> String {
        guard bytes.count == 16 else { return Hex.lowercase(bytes) }
        return [bytes[0..<4], bytes[4..<6], bytes[6..<8], bytes[8..<10], bytes[10..<16]].map(Hex.lowercase).joined(separator: "-")
    }

    /// Parses the dashed or plain hexadecimal form.
    public static func bytes(_ text: String) -> [UInt8]? {
        let hex = Array(text.replacingOccurrences(of: "-", with: "").lowercased())
        guard hex.count == 32 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 32, by: 2) {
            guard let byte = UInt8(String(hex[index...index + 1]), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}
