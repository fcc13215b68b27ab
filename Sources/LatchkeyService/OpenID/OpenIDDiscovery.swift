import LatchkeyJSON

extension OpenIDProvider {
    /// Where each endpoint is, under the issuer.
    package enum Endpoint: String, CaseIterable, Sendable {
        case authorization = "/oidc/authorize"
        case token = "/oidc/token"
        case userInfo = "/oidc/userinfo"
        case revocation = "/oidc/revoke"
        case introspection = "/oidc/introspect"
        case endSession = "/oidc/logout"
        case deviceAuthorization = "/oidc/device_authorization"
        /// The device page, where a person approves a device (RFC 8628's verification URI).
        case device = "/oidc/device"
        case keySet = "/.well-known/jwks.json"
    }

    /// The provider's metadata (OpenID Connect Discovery 1.0 §3, RFC 8414 §2), served at
    /// `/.well-known/openid-configuration` and `/.well-known/oauth-authorization-server`.
    package var discoveryDocument: JSONValue {
        func url(_ endpoint: Endpoint) -> JSONValue { .string(issuer + endpoint.rawValue) }
        func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }
        let clientAuthentication = strings(["client_secret_basic", "client_secret_post", "none"])
        return .object([
            "issuer": .string(issuer),
            "authorization_endpoint": url(.authorization),
            "token_endpoint": url(.token),
            "userinfo_endpoint": url(.userInfo),
            "revocation_endpoint": url(.revocation),
            "introspection_endpoint": url(.introspection),
            "end_session_endpoint": url(.endSession),
            "device_authorization_endpoint": url(.deviceAuthorization),
            "jwks_uri": url(.keySet),
            "response_types_supported": strings(["code"]),
            "response_modes_supported": strings(["query"]),
            "grant_types_supported": strings(["authorization_code", "refresh_token", OpenIDProvider.deviceCodeGrantType]),
            "subject_types_supported": strings(["public"]),
            "id_token_signing_alg_values_supported": strings(["ES256"]),
            "scopes_supported": strings(OAuthClientRules.knownScopes.sorted()),
            "claims_supported": strings([
                "iss", "sub", "aud", "azp", "exp", "iat", "auth_time", "nonce", "amr", "acr", "at_hash", "preferred_username", "name",
                "email", "email_verified", "phone_number", "phone_number_verified", "groups",
            ]),
            "acr_values_supported": strings(["phr", "phrh"]),
            "prompt_values_supported": strings(["none", "login", "consent", "select_account"]),
            "code_challenge_methods_supported": strings(["S256"]),
            "token_endpoint_auth_methods_supported": clientAuthentication,
            "revocation_endpoint_auth_methods_supported": clientAuthentication,
            "introspection_endpoint_auth_methods_supported": strings(["client_secret_basic", "client_secret_post"]),
            "authorization_response_iss_parameter_supported": .bool(true),
            "claims_parameter_supported": .bool(false),
            "request_parameter_supported": .bool(false),
            "request_uri_parameter_supported": .bool(false),
            "require_request_uri_registration": .bool(false),
            "frontchannel_logout_supported": .bool(false),
            "backchannel_logout_supported": .bool(false),
        ])
    }
}
