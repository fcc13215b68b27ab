/// The `nonce` a client may send with options, for the sign-in token the ceremony ends with to
/// carry back: a backend that made it up for one login attempt checks it there, so a token from
/// another attempt (someone else's, injected into this client) is refused, as OpenID Connect does.
enum TokenNonce {
    /// The most a nonce may be, in UTF-8 bytes.
    static let maximumBytes = 256

    /// The nonce as sent: 1 to 256 bytes of UTF-8 without control characters; nil when none was sent.
    static func checked(_ raw: String?) throws(APIError) -> String? {
        guard let raw else { return nil }
        guard !raw.isEmpty, raw.utf8.count <= maximumBytes else {
            throw APIError.badRequest("nonce must be 1 to \(maximumBytes) bytes of UTF-8")
        }
        if let bad = raw.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            throw APIError.badRequest("nonce contains the control character U+\(String(bad.value, radix: 16, uppercase: true))")
        }
        return raw
    }
}
