import Foundation

/// Reads and writes PEM-armoured certificates.
public enum PEM {
    /// Every `CERTIFICATE` block in `text`, as DER.
    public static func certificates(in text: String) -> [[UInt8]] {
        var blocks: [[UInt8]] = []
        var body: String?
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "-----BEGIN CERTIFICATE-----" {
                body = ""
            } else if trimmed == "-----END CERTIFICATE-----" {
                if let base64 = body, let der = Data(base64Encoded: base64) { blocks.append(Array(der)) }
                body = nil
            } else if body != nil {
                body? += trimmed
            }
        }
        return blocks
    }

    /// `der` as one PEM block of `label` (`CERTIFICATE`), in lines of 64 characters.
    public static func encode(_ der: [UInt8], label: String) -> String {
        let base64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN \(label)-----\n\(base64)\n-----END \(label)-----\n"
    }
}
