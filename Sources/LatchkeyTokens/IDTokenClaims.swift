import Foundation
import LatchkeyJSON
import WebAuthn

/// The claims of the token Latchkey issues on every successful ceremony: who signed in, with which
/// passkey and how, for services that verify it offline against the published key set.
public struct IDTokenClaims: Encodable, Sendable, Equatable {
    /// The issuer (`tokenIssuer`).
    public var iss: String
    /// The audiences (`tokenAudience`); one is written as a string, several as an array.
    public var aud: [String]
    /// The user handle, base64url: stable for the life of the account.
    public var sub: String
    public var preferredUsername: String
    /// The backend's identifier of the account, when it set one.
    public var externalId: String?
    public var issuedAt: Date
    public var expiresAt: Date
    /// When the person proved possession of the passkey.
    public var authenticatedAt: Date
    /// Authentication method references (RFC 8176).
    public var amr: [String]
    /// The credential ID of the passkey used, base64url.
    public var credentialID: String
    /// A unique token ID.
    public var jwtID: String
    /// What the client sent as `nonce` with the ceremony's options, when it sent one.
    public var nonce: String?

    public init(
        iss: String, aud: [String], sub: String, preferredUsername: String, externalId: String?, issuedAt: Date,
        expiresAt: Date, authenticatedAt: Date, amr: [String], credentialID: String, jwtID: String, nonce: String? = nil
    ) {
        self.iss = iss
        self.aud = aud
        self.sub = sub
        self.preferredUsername = preferredUsername
        self.externalId = externalId
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.authenticatedAt = authenticatedAt
        self.amr = amr
        self.credentialID = credentialID
        self.jwtID = jwtID
        self.nonce = nonce
    }

    /// RFC 8176 values for a passkey ceremony: `pop` (proof of possession of a key) always;
    /// `user` and `mfa` when the authenticator verified the user (biometrics or a PIN on top of
    /// possession of the device).
    public static func methods(userVerified: Bool) -> [String] {
        userVerified ? ["pop", "user", "mfa"] : ["pop"]
    }

    private enum CodingKeys: String, CodingKey {
        case iss, aud, sub, iat, exp, amr, cred, jti, nonce
        case preferredUsername = "preferred_username"
        case externalId = "ext_id"
        case authTime = "auth_time"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(iss, forKey: .iss)
        if aud.count == 1 {
            try container.encode(aud[0], forKey: .aud)
        } else {
            try container.encode(aud, forKey: .aud)
        }
        try container.encode(sub, forKey: .sub)
        try container.encode(preferredUsername, forKey: .preferredUsername)
        try container.encodeIfPresent(externalId, forKey: .externalId)
        try container.encode(Int64(issuedAt.timeIntervalSince1970), forKey: .iat)
        try container.encode(Int64(expiresAt.timeIntervalSince1970), forKey: .exp)
        try container.encode(Int64(authenticatedAt.timeIntervalSince1970), forKey: .authTime)
        try container.encode(amr, forKey: .amr)
        try container.encode(credentialID, forKey: .cred)
        try container.encode(jwtID, forKey: .jti)
        try container.encodeIfPresent(nonce, forKey: .nonce)
    }
}

extension IDTokenClaims: JSONTextEncodable {
    /// The same members as `encode(to:)`, written by hand: a token is signed for every ceremony.
    public func write(to json: inout JSONText) {
        json.object { json in
            json.member("iss", iss)
            if aud.count == 1 {
                json.member("aud", aud[0])
            } else {
                json.member("aud", strings: aud)
            }
            json.member("sub", sub)
            json.member("preferred_username", preferredUsername)
            if let externalId { json.member("ext_id", externalId) }
            json.member("iat", Int(issuedAt.timeIntervalSince1970))
            json.member("exp", Int(expiresAt.timeIntervalSince1970))
            json.member("auth_time", Int(authenticatedAt.timeIntervalSince1970))
            json.member("amr", strings: amr)
            json.member("cred", credentialID)
            json.member("jti", jwtID)
            if let nonce { json.member("nonce", nonce) }
        }
    }
}
