import WebAuthn

/// `POST /device-keys/options` body without a session: the enrollment ticket that names the user.
package struct DeviceKeyEnrollmentOptionsRequest: Decodable, Sendable {
    package var enrollmentTicket: String?
}

/// `POST /device-keys` body: a new key and its signature over the enrollment message.
package struct DeviceKeyEnrollmentRequest: Decodable, Sendable {
    package var challenge: Base64URLBytes
    /// The 65-byte uncompressed P-256 point `SecKeyCopyExternalRepresentation` returns.
    package var publicKey: Base64URLBytes
    /// DER ECDSA-SHA-256, as `SecKeyCreateSignature(..., .ecdsaSignatureMessageX962SHA256, ...)` returns it.
    package var signature: Base64URLBytes
    package var name: String?
}

/// `POST /device-keys/sign-in/options` body.
package struct DeviceKeySignInOptionsRequest: Decodable, Sendable {
    package var keyId: Base64URLBytes
    /// Carried back in the sign-in token's `nonce` claim.
    package var nonce: String?
}

/// `POST /device-keys/sign-in` body.
package struct DeviceKeySignInRequest: Decodable, Sendable {
    package var keyId: Base64URLBytes
    package var challenge: Base64URLBytes
    package var signature: Base64URLBytes
}

/// What a device key signs over, for enrollment or sign-in: the challenge, how long it may be answered, and the RP ID.
package struct DeviceKeyOptions: Encodable, Sendable {
    package var challenge: Base64URLBytes
    /// Milliseconds.
    package var timeout: Int
    package var rpId: String
}
