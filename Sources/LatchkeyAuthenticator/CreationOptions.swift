import WebAuthn

/// The reply of `POST /attestation/options`: `PublicKeyCredentialCreationOptionsJSON` (WebAuthn
/// §5.4) at the top level, as in the FIDO conformance API. Only the members the authenticator acts
/// on are read: it always makes discoverable, user-verified credentials, so `residentKey` and
/// `userVerification` need no answer; `attestation` chooses the statement unless `--attestation`
/// does; `timeout`, `extensions` and `hints` are left alone.
struct CreationOptions: Decodable {
    struct RelyingPartyEntity: Decodable {
        /// Absent: the origin's host, as a browser does.
        var id: String?
    }

    struct UserEntity: Decodable {
        var id: Base64URLBytes
        var name: String
        var displayName: String?
    }

    struct CredentialParameters: Decodable {
        var type: String
        var alg: Int64
    }

    struct AuthenticatorSelection: Decodable {
        var authenticatorAttachment: String?
    }

    var rp: RelyingPartyEntity
    var user: UserEntity
    var challenge: Base64URLBytes
    var pubKeyCredParams: [CredentialParameters]
    var excludeCredentials: [CredentialDescriptor]?
    var authenticatorSelection: AuthenticatorSelection?
    /// `none`, `indirect`, `direct` or `enterprise`; absent means `none`.
    var attestation: String?
}

/// The reply of `POST /assertion/options`: `PublicKeyCredentialRequestOptionsJSON` (WebAuthn
/// §5.5) at the top level. `userVerification` is not read: this authenticator always verifies.
struct RequestOptions: Decodable {
    var challenge: Base64URLBytes
    /// Absent: the origin's host, as a browser does.
    var rpId: String?
    /// Empty or absent: any discoverable credential of the RP ID (usernameless sign-in).
    var allowCredentials: [CredentialDescriptor]?
}

/// `PublicKeyCredentialDescriptorJSON`: a credential named in `excludeCredentials` or
/// `allowCredentials`.
struct CredentialDescriptor: Decodable {
    var type: String
    var id: Base64URLBytes
}

/// The members every Latchkey reply carries: a failed reply piped in instead of options is told
/// apart from malformed options.
struct ReplyStatus: Decodable {
    var status: String?
    var errorMessage: String?
}
