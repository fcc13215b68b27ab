import Foundation
import LatchkeyJSON
import LatchkeyService

/// The token endpoint's reply (RFC 6749 §5.1, OpenID Connect Core §3.1.3.3), written by hand: every exchange and
/// refresh answers with one.
struct TokenReply: JSONTextEncodable {
    let accessToken: String
    let tokenType = "Bearer"
    let expiresIn: Int
    let refreshToken: String?
    let idToken: String?
    let scope: String

    init(_ issued: IssuedTokens) {
        accessToken = issued.accessToken
        expiresIn = issued.expiresIn
        refreshToken = issued.refreshToken
        idToken = issued.idToken
        scope = issued.scopes.joined(separator: " ")
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", tokenType = "token_type", expiresIn = "expires_in", refreshToken = "refresh_token"
        case idToken = "id_token", scope
    }

    func write(to json: inout JSONText) {
        json.object { json in
            json.member("access_token", accessToken)
            json.member("token_type", tokenType)
            json.member("expires_in", expiresIn)
            if let refreshToken { json.member("refresh_token", refreshToken) }
            if let idToken { json.member("id_token", idToken) }
            json.member("scope", scope)
        }
    }
}

/// The device authorization endpoint's reply (RFC 8628 §3.2).
struct DeviceAuthorizationReply: Encodable {
    let started: DeviceAuthorizationStarted

    enum CodingKeys: String, CodingKey {
        case deviceCode = "device_code", userCode = "user_code", verificationURI = "verification_uri"
        case verificationURIComplete = "verification_uri_complete", expiresIn = "expires_in", interval
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(started.deviceCode, forKey: .deviceCode)
        try container.encode(started.userCode, forKey: .userCode)
        try container.encode(started.verificationURI, forKey: .verificationURI)
        try container.encode(started.verificationURIComplete, forKey: .verificationURIComplete)
        try container.encode(started.expiresIn, forKey: .expiresIn)
        try container.encode(started.interval, forKey: .interval)
    }
}

/// Userinfo's reply (OpenID Connect Core §5.3.2), written by hand.
struct UserInfoReply: JSONTextEncodable {
    let info: UserInfo

    init(_ info: UserInfo) {
        self.info = info
    }

    enum CodingKeys: String, CodingKey {
        case sub, preferredUsername = "preferred_username", name, email, emailVerified = "email_verified", phoneNumber = "phone_number"
        case phoneNumberVerified = "phone_number_verified", groups
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(info.subject, forKey: .sub)
        try container.encodeIfPresent(info.profile.preferredUsername, forKey: .preferredUsername)
        try container.encodeIfPresent(info.profile.name, forKey: .name)
        if let email = info.profile.email {
            try container.encode(email, forKey: .email)
            try container.encode(false, forKey: .emailVerified)
        }
        if let phone = info.profile.phoneNumber {
            try container.encode(phone, forKey: .phoneNumber)
            try container.encode(false, forKey: .phoneNumberVerified)
        }
        try container.encodeIfPresent(info.profile.groups, forKey: .groups)
    }

    func write(to json: inout JSONText) {
        json.object { json in
            json.member("sub", info.subject)
            info.profile.write(into: &json)
        }
    }
}

/// Introspection's reply (RFC 7662 §2.2): `{"active":false}` for any token not live.
struct IntrospectionReply: Encodable {
    let introspection: TokenIntrospection
    let issuer: String

    init(_ introspection: TokenIntrospection, issuer: String) {
        self.introspection = introspection
        self.issuer = issuer
    }

    enum CodingKeys: String, CodingKey {
        case active, scope, clientID = "client_id", username, tokenType = "token_type", exp, iat, sub, aud, iss
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        guard let active = introspection.active else {
            try container.encode(false, forKey: .active)
            return
        }
        try container.encode(true, forKey: .active)
        try container.encode(active.scopes.joined(separator: " "), forKey: .scope)
        try container.encode(active.clientID, forKey: .clientID)
        try container.encode(active.username, forKey: .username)
        try container.encode(active.tokenType, forKey: .tokenType)
        try container.encode(Int(active.expiresAt.timeIntervalSince1970), forKey: .exp)
        try container.encode(Int(active.issuedAt.timeIntervalSince1970), forKey: .iat)
        try container.encode(active.subject, forKey: .sub)
        try container.encode(active.clientID, forKey: .aud)
        try container.encode(issuer, forKey: .iss)
    }
}

/// An OAuth error (RFC 6749 §5.2), with the `status` and `errorMessage` every Latchkey refusal has.
struct OAuthErrorReply: Encodable {
    let error: String
    let errorDescription: String
    let status = "failed"

    enum CodingKeys: String, CodingKey { case error, errorDescription = "error_description", status, errorMessage }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(error, forKey: .error)
        try container.encode(errorDescription, forKey: .errorDescription)
        try container.encode(status, forKey: .status)
        try container.encode(errorDescription, forKey: .errorMessage)
    }
}
