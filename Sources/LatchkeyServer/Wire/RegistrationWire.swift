import LatchkeyService
import LatchkeyStore
import WebAuthn

/// `POST /attestation/options` body: who registers and what they ask of the authenticator.
struct RegistrationOptionsRequest: Decodable, Sendable {
    /// Required unless an enrollment ticket names the user.
    var username: String?
    /// A ticket from the admin API: registers for its user without a session, once.
    var enrollmentTicket: String?
    /// `"conditional"` for a conditional create (the client may make the passkey without asking:
    /// an automatic passkey upgrade), only for a signed-in user or a ticket holder; `"required"`,
    /// `"optional"` or absent for a modal one.
    var mediation: CreationMediation?
    var displayName: String?
    /// Carried back in the sign-in token's `nonce` claim.
    var nonce: String?
    var authenticatorSelection: AuthenticatorSelectionCriteria?
    var attestation: AttestationConveyance?
    /// Level 3 `hints` and `attestationFormats`, passed through to the options as sent.
    var hints: [String]?
    var attestationFormats: [String]?
    /// Echoed as sent; must be an object.
    var extensions: EchoedExtensions?
}

/// The creation options reply (`PublicKeyCredentialCreationOptionsJSON`, WebAuthn §5.4) with
/// `status` and `errorMessage` beside them, as the conformance API asks.
struct CreationOptionsReply: Encodable, Sendable {
    struct RelyingPartyEntity: Encodable, Sendable {
        var id: String
        var name: String
    }

    struct UserEntity: Encodable, Sendable {
        var id: Base64URLBytes
        var name: String
        var displayName: String
    }

    struct CredentialParameters: Encodable, Sendable {
        var type = PublicKeyCredentialType.publicKey
        var alg: Int64
    }

    let status = "ok"
    let errorMessage = ""
    var rp: RelyingPartyEntity
    var user: UserEntity
    var challenge: Base64URLBytes
    var pubKeyCredParams: [CredentialParameters]
    /// Milliseconds.
    var timeout: Int
    var excludeCredentials: [CredentialDescriptor]
    var authenticatorSelection: AuthenticatorSelectionCriteria?
    var attestation: AttestationConveyance
    var hints: [String]?
    var attestationFormats: [String]?
    var extensions: [String: JSONValue]?
}

/// `POST /attestation/result` body: a `RegistrationResponseJSON` (WebAuthn §5.1, `toJSON()`), or
/// the conformance API's ServerPublicKeyCredential.
struct RegistrationCredential: Decodable, Sendable {
    struct Response: Decodable, Sendable {
        var clientDataJSON: Base64URLBytes
        var attestationObject: Base64URLBytes
        var transports: [String]?
    }

    var id: Base64URLBytes
    var rawId: Base64URLBytes?
    var type: PublicKeyCredentialType
    var response: Response
    var clientExtensionResults: ClientExtensionResults?
    /// The conformance API's name for `clientExtensionResults`.
    var getClientExtensionResults: ClientExtensionResults?

    /// The extension results, under either name.
    var extensionResults: ClientExtensionResults? { clientExtensionResults ?? getClientExtensionResults }
}

/// The client extension outputs the server reads (WebAuthn §10); others are ignored.
struct ClientExtensionResults: Decodable, Sendable {
    struct CredentialProperties: Decodable, Sendable {
        var rk: Bool?
    }

    var credProps: CredentialProperties?
}

/// `POST /attestation/result` reply.
struct RegistrationReply: Encodable, Sendable {
    let status = "ok"
    let errorMessage = ""
    var username: String
    var credentialId: Base64URLBytes
    var attestationFormat: AttestationFormatIdentifier
    var attestationType: AttestationType
    var attestationTrusted: Bool
    var userVerified: Bool
    /// Set when the registration signed the user in: it created the user, or spent a ticket.
    var sessionToken: String?
    /// The signed sign-in token (JWT) saying who registered this passkey.
    var idToken: String
}
