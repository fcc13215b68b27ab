import Foundation
import LatchkeyJSON

/// The claims of an ID token the OpenID provider issues (OpenID Connect Core §2): who signed in, when and how, for
/// one client. Profile claims are in it when the grant's scopes ask for them.
package struct OpenIDTokenClaims: JSONTextEncodable, Sendable {
    package var issuer: String
    package var subject: String
    package var clientID: String
    package var issuedAt: Date
    package var expiresAt: Date
    package var authTime: Date
    package var nonce: String?
    /// RFC 8176 values.
    package var methods: [String]
    /// `phrh` (phishing-resistant, hardware-protected) when the key could not leave its device, `phr` otherwise: the
    /// authentication context class values of the OpenID EAP ACR profile.
    package var contextClass: String
    /// The left half of the access token's SHA-256, base64url (OpenID Connect Core §3.1.3.6).
    package var accessTokenHash: String
    package var profile: OpenIDProfileClaims

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The same members as ``write(to:)``, for encoders other than the token's.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (name, value) in [("iss", issuer), ("sub", subject), ("aud", clientID), ("azp", clientID), ("acr", contextClass), ("at_hash", accessTokenHash)] {
            try container.encode(value, forKey: Key(name))
        }
        for (name, date) in [("iat", issuedAt), ("exp", expiresAt), ("auth_time", authTime)] {
            try container.encode(Int(date.timeIntervalSince1970), forKey: Key(name))
        }
        try container.encodeIfPresent(nonce, forKey: Key("nonce"))
        try container.encode(methods, forKey: Key("amr"))
        try container.encodeIfPresent(profile.preferredUsername, forKey: Key("preferred_username"))
        try container.encodeIfPresent(profile.name, forKey: Key("name"))
        try container.encodeIfPresent(profile.email, forKey: Key("email"))
        try container.encodeIfPresent(profile.phoneNumber, forKey: Key("phone_number"))
        try container.encodeIfPresent(profile.groups, forKey: Key("groups"))
    }

    package func write(to json: inout JSONText) {
        json.object { json in
            json.member("iss", issuer)
            json.member("sub", subject)
            json.member("aud", clientID)
            json.member("azp", clientID)
            json.member("iat", Int(issuedAt.timeIntervalSince1970))
            json.member("exp", Int(expiresAt.timeIntervalSince1970))
            json.member("auth_time", Int(authTime.timeIntervalSince1970))
            if let nonce { json.member("nonce", nonce) }
            json.member("amr", strings: methods)
            json.member("acr", contextClass)
            json.member("at_hash", accessTokenHash)
            profile.write(into: &json)
        }
    }

    /// The `acr` for a sign-in that proved `methods`.
    package static func contextClass(of methods: [String]) -> String {
        methods.contains("hwk") ? "phrh" : "phr"
    }
}

/// The claims about the person that scopes release, in the ID token and from userinfo.
package struct OpenIDProfileClaims: Sendable {
    /// `profile`: the username and display name.
    package var preferredUsername: String?
    package var name: String?
    /// `email`, `phone`: the contact the account was created with, never verified by Latchkey.
    package var email: String?
    package var phoneNumber: String?
    /// `groups`: the groups the person is in (an empty list when none).
    package var groups: [String]?

    package init(
        preferredUsername: String? = nil, name: String? = nil, email: String? = nil, phoneNumber: String? = nil, groups: [String]? = nil
    ) {
        (self.preferredUsername, self.name, self.email, self.phoneNumber, self.groups) = (preferredUsername, name, email, phoneNumber, groups)
    }

    package func write(into json: inout JSONText) {
        if let preferredUsername { json.member("preferred_username", preferredUsername) }
        if let name { json.member("name", name) }
        if let email {
            json.member("email", email)
            json.member("email_verified", false)
        }
        if let phoneNumber {
            json.member("phone_number", phoneNumber)
            json.member("phone_number_verified", false)
        }
        if let groups { json.member("groups", strings: groups) }
    }
}
