import LatchkeyStore
import WebAuthn

/// `POST /attestation/options` body: who registers and what they ask of the authenticator.
package struct RegistrationOptionsRequest: Decodable, Sendable {
    /// Required unless an enrollment ticket names the user.
    package var username: String?
    /// A ticket from the admin API: registers for its user without a session, once.
    package var enrollmentTicket: String?
    /// `"conditional"` for a conditional create (the client may make the passkey without asking:
    /// an automatic passkey upgrade), only for a signed-in user or a ticket holder; `"required"`,
    /// `"optional"` or absent for a modal one.
    package var mediation: CreationMediation?
    package var displayName: String?
    /// Carried back in the sign-in token's `nonce` claim.
    package var nonce: String?
    package var authenticatorSelection: AuthenticatorSelectionCriteria?
    package var attestation: AttestationConveyance?
    /// Level 3 `hints` and `attestationFormats`, passed through to the options as sent.
    package var hints: [String]?
    package var attestationFormats: [String]?
    /// Echoed as sent; must be an object.
    package var extensions: EchoedExtensions?
}

extension RegistrationOptionsRequest {
    /// A request that spends `enrollmentTicket`, asking nothing else (an extension's, so the memberwise one stays).
    package init(enrollmentTicket: String) {
        self.init(username: nil, enrollmentTicket: enrollmentTicket)
    }
}

/// `POST /attestation/result` body: a `RegistrationResponseJSON` (WebAuthn §5.1, `toJSON()`), or
/// the conformance API's ServerPublicKeyCredential.
package struct RegistrationCredential: Decodable, Sendable {
    package struct Response: Decodable, Sendable {
        package var clientDataJSON: Base64URLBytes
        package var attestationObject: Base64URLBytes
        package var transports: [String]?
    }

    package var id: Base64URLBytes
    package var rawId: Base64URLBytes?
    package var type: PublicKeyCredentialType
    package var response: Response
    package var clientExtensionResults: ClientExtensionResults?
    /// The conformance API's name for `clientExtensionResults`.
    package var getClientExtensionResults: ClientExtensionResults?
    /// The email address or phone number the person gave the account-creation sheet (iOS and macOS 26), kept with a
    /// new account, unverified.
    package var contactIdentifier: String?

    /// The extension results, under either name.
    package var extensionResults: ClientExtensionResults? { clientExtensionResults ?? getClientExtensionResults }
}

/// The client extension outputs the server reads (WebAuthn §10); others are ignored.
package struct ClientExtensionResults: Decodable, Sendable {
    package struct CredentialProperties: Decodable, Sendable {
        package var rk: Bool?
    }

    package var credProps: CredentialProperties?
}
