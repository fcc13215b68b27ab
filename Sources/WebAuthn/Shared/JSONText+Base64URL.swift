import LatchkeyJSON

extension JSONText {
    /// A member whose value is `value` in base64url without padding, as WebAuthn's JSON writes bytes.
    public mutating func member(_ key: String, base64URL value: [UInt8]) {
        member(key, Base64URL.encode(value))
    }
}
