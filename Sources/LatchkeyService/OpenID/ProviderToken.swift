import WebAuthn

/// A code, access token or refresh token of the OpenID provider: the grant's 16-byte ID and 32 random bytes, in
/// base64url (64 characters). The grant keeps only the SHA-256 of its current token of each kind, so a token is
/// found by its grant's ID and proved by its hash, compared in constant time.
package struct ProviderToken: Sendable {
    package static let grantIDLength = 16
    private static let secretLength = 32

    /// The token as the client holds it.
    package let text: String
    package let grantID: [UInt8]
    /// What the grant keeps.
    package let hash: [UInt8]

    /// A new token of `grantID`.
    package init(grantID: [UInt8]) throws {
        let bytes = grantID + (try SecureRandom.bytes(count: Self.secretLength))
        (text, self.grantID, hash) = (Base64URL.encode(bytes), grantID, Digest.sha256(bytes))
    }

    /// The token `text` is, or nil when it cannot be one of ours.
    package init?(_ text: String) {
        guard text.utf8.count == 64, let bytes = Base64URL.decode(text), bytes.count == Self.grantIDLength + Self.secretLength else {
            return nil
        }
        (self.text, grantID, hash) = (text, Array(bytes.prefix(Self.grantIDLength)), Digest.sha256(bytes))
    }

    /// Whether this is the token whose hash the grant keeps as `stored`.
    package func matches(_ stored: [UInt8]?) -> Bool {
        guard let stored else { return false }
        return constantTimeEquals(hash, stored)
    }
}

/// Proof Key for Code Exchange (RFC 7636), S256 only: `plain` would hand the challenge's reader the verifier.
package enum PKCE {
    /// Whether `verifier` (43 to 128 characters of `A-Z a-z 0-9 - . _ ~`) is the one `challenge` was made from.
    package static func verifies(_ verifier: String, challenge: String) -> Bool {
        guard isVerifier(verifier) else { return false }
        return constantTimeEquals(Array(Base64URL.encode(Digest.sha256(Array(verifier.utf8))).utf8), Array(challenge.utf8))
    }

    /// Whether `challenge` can be an S256 challenge: 43 characters of base64url.
    package static func isChallenge(_ challenge: String) -> Bool {
        challenge.utf8.count == 43 && Base64URL.decode(challenge)?.count == 32
    }

    private static func isVerifier(_ text: String) -> Bool {
        (43...128).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
            default: false
            }
        }
    }
}

extension Optional {
    /// `transform` of the wrapped value, awaited; nil stays nil.
    func asyncMap<Result>(_ transform: (Wrapped) async throws -> Result?) async rethrows -> Result? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
