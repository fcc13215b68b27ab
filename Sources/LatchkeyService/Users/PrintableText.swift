import Foundation

/// The rule for every text a client sends that Latchkey keeps, logs or signs into a token (names,
/// external IDs, nonces): at most so many bytes of UTF-8, free of control characters and line
/// separators (which would let it forge log lines), and showing something.
package enum PrintableText {
    /// A 400 naming `member` and what is wrong, unless `text` keeps the rule.
    package static func check(_ text: String, member: String, maximumBytes: Int) throws(ServiceError) {
        guard text.utf8.count <= maximumBytes else {
            throw ServiceError.invalid("\(member) is \(text.utf8.count) bytes of UTF-8; at most \(maximumBytes) are allowed")
        }
        if let bad = text.unicodeScalars.first(where: { $0.properties.generalCategory == .control || $0 == "\u{2028}" || $0 == "\u{2029}" }) {
            throw ServiceError.invalid("\(member) contains the control character \(codePoint(bad))")
        }
        // Blank also when it shows nothing: spaces, invisible characters, the braille blank.
        guard text.unicodeScalars.contains(where: { !$0.properties.isWhitespace && !$0.properties.isDefaultIgnorableCodePoint && $0 != "\u{2800}" }) else {
            throw ServiceError.invalid("\(member) is blank")
        }
    }

    /// `U+` and at least four hexadecimal digits, as Unicode writes a code point.
    package static func codePoint(_ scalar: Unicode.Scalar) -> String { String(format: "U+%04X", scalar.value) }
}
