/// The `nonce` a client may send with options, for the sign-in token the ceremony ends with to
/// carry back: a backend that made it up for one login attempt checks it there, so a token from
/// another attempt (someone else's, injected into this client) is refused, as OpenID Connect does.
package enum TokenNonce {
    /// The most a nonce may be, in UTF-8 bytes.
    package static let maximumBytes = 256

    /// The nonce as sent, as ``PrintableText`` allows in at most 256 bytes; nil when none was sent.
    package static func checked(_ raw: String?) throws(ServiceError) -> String? {
        try raw.map { nonce throws(ServiceError) in
            try PrintableText.check(nonce, member: "nonce", maximumBytes: maximumBytes)
            return nonce
        }
    }
}
