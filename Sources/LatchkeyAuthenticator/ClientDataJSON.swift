import WebAuthn

/// Serializes `CollectedClientData` the way browsers do (WebAuthn §5.8.1.1): `type`, `challenge`,
/// `origin`, `crossOrigin`, in that order, so the server's limited verification reader accepts it.
enum ClientDataJSON {
    /// Client data for a top-level (never cross-origin) ceremony.
    static func serialize(type: String, challenge: [UInt8], origin: String) -> [UInt8] {
        var text = "{\"type\":" + quoted(type)
        text += ",\"challenge\":" + quoted(Base64URL.encode(challenge))
        text += ",\"origin\":" + quoted(origin)
        text += ",\"crossOrigin\":false}"
        return Array(text.utf8)
    }

    /// §5.8.1.1 CCDToString: `"` and `\` escaped, control characters as `\uXXXX`.
    private static func quoted(_ value: String) -> String {
        var text = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\u{0}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16, uppercase: false)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }
}
