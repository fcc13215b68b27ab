import Foundation

/// `POST /admin/v1/oauth-clients` body: a client as an administrator registers it. Only `name` and `redirectURIs`
/// are required; a client is confidential (it gets a secret) unless `public` is true.
package struct NewOAuthClient: Decodable, Sendable {
    package var name: String
    package var redirectURIs: [String]
    package var `public`: Bool?
    package var postLogoutRedirectURIs: [String]?
    package var scopes: [String]?
    package var consent: Bool?
    package var accessTokenLifetime: Int?
    package var refreshTokenLifetime: Int?
    /// When given (not empty), only members of one of these groups may sign in to the client.
    package var allowedGroups: [String]?
    /// Whether the client may use the device authorization grant (RFC 8628); off unless asked. A client that uses only
    /// it may have no redirect URIs.
    package var deviceAuthorization: Bool?

    package init(
        name: String, redirectURIs: [String], public: Bool? = nil, postLogoutRedirectURIs: [String]? = nil, scopes: [String]? = nil,
        consent: Bool? = nil, accessTokenLifetime: Int? = nil, refreshTokenLifetime: Int? = nil, allowedGroups: [String]? = nil,
        deviceAuthorization: Bool? = nil
    ) {
        self.allowedGroups = allowedGroups
        self.deviceAuthorization = deviceAuthorization
        self.name = name
        self.redirectURIs = redirectURIs
        self.public = `public`
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.scopes = scopes
        self.consent = consent
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
    }
}

/// `PATCH /admin/v1/oauth-clients/{clientID}` body: the members present change. Whether a client is public does not
/// change (make another client instead).
package struct OAuthClientChanges: Decodable, Sendable {
    package var name: String?
    package var redirectURIs: [String]?
    package var postLogoutRedirectURIs: [String]?
    package var scopes: [String]?
    package var consent: Bool?
    package var accessTokenLifetime: Int?
    package var refreshTokenLifetime: Int?
    /// `[]` admits everyone again.
    package var allowedGroups: [String]?
    package var deviceAuthorization: Bool?
}

/// What the provider lets a client be: the rules every registration and change is checked against.
package enum OAuthClientRules {
    /// The scopes the provider knows.
    package static let knownScopes: Set<String> = ["openid", "profile", "email", "phone", "groups", "offline_access"]
    /// The scopes of a client registered without any: everything but refresh tokens.
    package static let defaultScopes = ["openid", "profile", "email", "phone", "groups"]
    package static let defaultAccessTokenLifetime = 600
    package static let defaultRefreshTokenLifetime = 30 * 86_400
    package static let accessTokenLifetimes = 60...86_400
    package static let refreshTokenLifetimes = 300...(365 * 86_400)
    private static let maximumURIs = 20

    /// The problem with `name`, if any.
    package static func nameProblem(_ name: String) -> String? {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard (1...100).contains(trimmed.count), trimmed == name else {
            return "name is 1 to 100 characters, without spaces at either end"
        }
        return name.unicodeScalars.contains { $0.properties.generalCategory == .control } ? "name may not hold control characters" : nil
    }

    /// The problem with a list of redirect URIs, if any: each absolute, without a fragment; https, or http to a
    /// loopback address (RFC 8252 §7.3), or a native app's private-use scheme with a dot in it (RFC 8252 §7.1).
    package static func redirectProblem(_ uris: [String], member: String, required: Bool) -> String? {
        if required, uris.isEmpty { return "\(member) must list at least one URI" }
        guard uris.count <= maximumURIs else { return "\(member) lists at most \(maximumURIs) URIs" }
        guard Set(uris).count == uris.count else { return "\(member) lists a URI twice" }
        for uri in uris {
            if let problem = uriProblem(uri) { return "\(member): \(uri.prefix(200).debugDescription) \(problem)" }
        }
        return nil
    }

    private static func uriProblem(_ uri: String) -> String? {
        guard uri.utf8.count <= 2_000 else { return "is longer than 2,000 bytes" }
        guard !uri.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value >= 0x7F }) else {
            return "holds a space, a control or a non-ASCII character (percent-encode them)"
        }
        guard let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased() else {
            return "is not an absolute URI"
        }
        guard components.fragment == nil else { return "has a fragment, which a redirect URI may not have (RFC 6749 §3.1.2)" }
        switch scheme {
        case "https":
            guard let host = components.host, !host.isEmpty else { return "has no host" }
        case "http":
            guard let host = components.host, ["127.0.0.1", "localhost", "[::1]", "::1"].contains(host.lowercased()) else {
                return "is http to a host that is not this machine's loopback: use https"
            }
        default:
            guard scheme.contains(".") else {
                return "has the scheme \(scheme.debugDescription): use https, http to a loopback address, or a reverse-domain scheme (com.example.app:/callback)"
            }
        }
        return nil
    }

    /// The problem with a list of scopes, if any.
    package static func scopesProblem(_ scopes: [String]) -> String? {
        guard scopes.contains("openid") else { return "scopes must include openid" }
        if let unknown = scopes.first(where: { !knownScopes.contains($0) }) {
            return "scopes: \(unknown.prefix(100).debugDescription) is not a scope of this provider; the scopes are \(knownScopes.sorted().joined(separator: ", "))"
        }
        return Set(scopes).count == scopes.count ? nil : "scopes lists a scope twice"
    }

    /// The problem with a lifetime, if any.
    package static func lifetimeProblem(_ seconds: Int?, member: String, within range: ClosedRange<Int>) -> String? {
        guard let seconds, !range.contains(seconds) else { return nil }
        return "\(member) is between \(range.lowerBound) and \(range.upperBound) seconds"
    }
}
