import Foundation

/// Standard base64 (RFC 4648 §4), the encoding of `x5c` certificates and metadata root certificates.
enum StandardBase64 {
    /// Decodes standard base64; missing `=` padding is tolerated, any other character outside the
    /// alphabet (including whitespace and the base64url characters) makes the result nil.
    static func decode(_ text: String) -> [UInt8]? {
        var padded = text
        switch padded.utf8.count % 4 {
        case 2: padded += "=="
        case 3: padded += "="
        case 1: return nil
        default: break
        }
        guard let data = Data(base64Encoded: padded) else { return nil }
        return [UInt8](data)
    }
}
