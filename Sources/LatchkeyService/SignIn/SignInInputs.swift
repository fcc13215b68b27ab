import WebAuthn

/// `POST /assertion/options` body: everything optional; no username means usernameless sign-in.
package struct SignInOptionsRequest: Decodable, Sendable {
    package var username: String?
    package var userVerification: UserVerificationRequirement?
    /// Level 3 `hints` (`security-key`, `client-device`, `hybrid`), passed through as sent.
    package var hints: [String]?
    /// Echoed as sent; must be an object.
    package var extensions: EchoedExtensions?
    /// Carried back in the sign-in token's `nonce` claim.
    package var nonce: String?
}

extension SignInOptionsRequest {
    /// A usernameless request, asking nothing else (an extension's, so the memberwise one stays).
    package static let usernameless = SignInOptionsRequest(username: nil)
}

/// `POST /assertion/result` body: an `AuthenticationResponseJSON` (WebAuthn §5.1, `toJSON()`).
package struct SignInCredential: Decodable, Sendable {
    package struct Response: Decodable, Sendable {
        package var clientDataJSON: Base64URLBytes
        package var authenticatorData: Base64URLBytes
        package var signature: Base64URLBytes
        /// Absent, null or empty when the authenticator returned none.
        package var userHandle: Base64URLBytes?
    }

    package var id: Base64URLBytes
    package var rawId: Base64URLBytes?
    package var type: PublicKeyCredentialType
    package var response: Response
}
