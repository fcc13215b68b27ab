import Foundation
import LatchkeyStore
import WebAuthn

/// The parameters of an authorization request (query or form), each at most once (RFC 6749 §3.1); an empty value
/// counts as absent.
package struct AuthorizationParameters: Sendable {
    private var values: [String: String] = [:]
    /// Names given more than once.
    private(set) var repeated: Set<String> = []

    package init(_ pairs: [(name: String, value: String)]) {
        for (name, value) in pairs where !value.isEmpty {
            if values[name] != nil { repeated.insert(name) } else { values[name] = value }
        }
    }

    package subscript(_ name: String) -> String? { values[name] }

    /// The parameters as a query, `name=value&…` percent-encoded, each of `replaced` set to its value (nil: left out).
    func query(replacing replaced: [String: String?] = [:]) -> String {
        var values = values
        for (name, value) in replaced { values[name] = value }
        return values.sorted { $0.key < $1.key }.map { "\(URIText.escape($0.key))=\(URIText.escape($0.value))" }.joined(separator: "&")
    }
}

/// What the authorization endpoint does with a request.
package enum AuthorizationOutcome: Sendable {
    /// An error page: the request cannot be answered at a redirect URI (an unknown client, a redirect URI not
    /// registered), so it is not (RFC 6749 §4.1.2.1).
    case refused(String)
    /// The browser goes to the client's redirect URI, with a code or an error.
    case redirect(String)
    /// The person signs in first.
    case signIn(AuthorizationPrompt)
    /// The person is asked whether the client may have what it asks.
    case consent(AuthorizationPrompt)
    /// The signed-in person may not use this client (not in any of its groups): a page says so, never a redirect.
    case denied(String)
}

/// What the sign-in and consent pages show, and the request they repeat once the person signed in or answered.
package struct AuthorizationPrompt: Sendable {
    package let clientName: String
    package let scopes: [String]
    package let loginHint: String?
    /// Who is signed in, on the consent page.
    package let username: String?
    /// The request again, as a query, for once the person signed in (without what asked for the sign-in: `prompt=login`,
    /// `max_age`) or said yes (with the consent token).
    package let continueQuery: String
    /// The request with the person's no, on the consent page.
    package let declineQuery: String?
    /// The endpoint the query goes back to, beside the page: `authorize`, or `device` for the device page's sign-in.
    package var endpoint = "authorize"
}

extension OpenIDProvider {
    /// The parameter the consent page adds: proof, bound to the session, that the person agreed.
    package static let consentParameter = "latchkey_consent"
    /// Its value when the person said no.
    static let declined = "declined"

    /// Answers an authorization request made with `session` (the browser's live session, if any): a code at the
    /// client's redirect URI, an error there, an error page, or a page for the person first.
    package func authorize(
        _ parameters: AuthorizationParameters, session: SessionWithUser?, origin: EventOrigin = .system("openid"), now: Date = Date()
    ) async throws -> AuthorizationOutcome {
        for name in ["client_id", "redirect_uri"] where parameters.repeated.contains(name) {
            return .refused("\(name) is given more than once")
        }
        guard let clientID = parameters["client_id"] else { return .refused("client_id is missing") }
        guard let client = try await service.store.oauthClient(id: clientID) else {
            return .refused("there is no client \(clientID.prefix(64).debugDescription) at this issuer")
        }
        guard let redirectURI = parameters["redirect_uri"] else { return .refused("redirect_uri is missing") }
        guard client.redirectURIs.contains(redirectURI) else {
            return .refused("\(redirectURI.prefix(200).debugDescription) is not a redirect URI registered for \(client.name)")
        }
        let state = parameters["state"]
        do {
            let request = try AuthorizationChecks(parameters, client: client)
            return try await answer(request, parameters, client: client, session: session, origin: origin, now: now)
        } catch let error as AuthorizationError {
            return .redirect(Self.redirect(to: redirectURI, [("error", error.code), ("error_description", error.message), ("state", state), ("iss", issuer)]))
        }
    }

    private func answer(
        _ request: AuthorizationChecks, _ parameters: AuthorizationParameters, client: OAuthClientRecord, session: SessionWithUser?,
        origin: EventOrigin, now: Date
    ) async throws -> AuthorizationOutcome {
        let fresh = session.map { request.accepts($0.session, now: now) } ?? false
        guard let session, fresh else {
            if request.prompt.contains("none") { throw AuthorizationError("login_required", "no one is signed in here, and prompt=none") }
            return .signIn(AuthorizationPrompt(
                clientName: client.name, scopes: request.scopes, loginHint: parameters["login_hint"], username: nil,
                continueQuery: parameters.query(replacing: ["prompt": request.promptAfterSignIn, "max_age": nil]), declineQuery: nil))
        }
        if let refusal = try await refusal(of: session, by: client, origin: origin, now: now) { return refusal }
        if let page = try await consentPage(request, parameters, client: client, session: session, now: now) { return page }
        let grantID = try SecureRandom.bytes(count: ProviderToken.grantIDLength)
        let code = try ProviderToken(grantID: grantID)
        let expires = now.addingTimeInterval(Self.codeLifetime)
        try await service.store.saveOAuthGrant(
            OAuthGrantRecord(
                id: grantID, clientID: client.clientID, userHandle: session.user.handle, scopes: request.scopes,
                redirectURI: request.redirectURI, nonce: request.nonce, codeChallenge: request.codeChallenge,
                authTime: session.session.createdAt, methods: session.session.methods, codeHash: code.hash, codeExpiresAt: expires,
                createdAt: now, expiresAt: expires),
            recording: [])
        return .redirect(Self.redirect(to: request.redirectURI, [("code", code.text), ("state", request.state), ("iss", issuer)]))
    }

    /// The page a client that admits only some groups shows `session`'s user when they are in none, recorded.
    func refusal(of session: SessionWithUser, by client: OAuthClientRecord, origin: EventOrigin, now: Date) async throws
        -> AuthorizationOutcome?
    {
        guard !client.allowedGroups.isEmpty else { return nil }
        let groups = try await service.store.groups(ofUser: session.user.handle)
        guard Set(groups).isDisjoint(with: client.allowedGroups) else { return nil }
        let allowed = client.allowedGroups.joined(separator: ", ")
        let event = try service.events.event(
            .oauthAccessDenied, origin, user: session.user, detail: "client \(client.clientID) (\(client.name)): not in \(allowed)", at: now)
        _ = try await service.store.recordEvent(event, whileItsUserExists: true)
        return .denied(
            "\(session.user.username) may not sign in to \(client.name): it admits members of \(allowed) only. Ask its administrator to add you to one of them.")
    }

    /// The consent page, when the client or `prompt=consent` asks for one and the person has not agreed to these scopes:
    /// nil when they agreed now (remembered from here on) or before.
    private func consentPage(
        _ request: AuthorizationChecks, _ parameters: AuthorizationParameters, client: OAuthClientRecord, session: SessionWithUser, now: Date
    ) async throws -> AuthorizationOutcome? {
        guard client.consent || request.prompt.contains("consent") else { return nil }
        let answer = parameters[Self.consentParameter]
        if answer == Self.declined { throw AuthorizationError("access_denied", "\(session.user.username) did not allow \(client.name)") }
        let token = try consentToken(session.session, client: client, redirectURI: request.redirectURI)
        if let answer, constantTimeEquals(Array(answer.utf8), Array(token.utf8)) {
            try await service.store.saveOAuthConsent(ofUser: session.user.handle, client: client.clientID, scopes: request.scopes, at: now)
            return nil
        }
        // Asked once per client and set of scopes: what the person agreed to is remembered, unless prompt=consent.
        if !request.prompt.contains("consent"),
           let remembered = try await service.store.oauthConsent(ofUser: session.user.handle, client: client.clientID),
           Set(request.scopes).isSubset(of: remembered) {
            return nil
        }
        if request.prompt.contains("none") { throw AuthorizationError("consent_required", "\(client.name) asks for consent, and prompt=none") }
        func query(_ consent: String) -> String {
            parameters.query(replacing: ["prompt": request.promptAfterSignIn, "max_age": nil, Self.consentParameter: consent])
        }
        return .consent(AuthorizationPrompt(
            clientName: client.name, scopes: request.scopes, loginHint: nil, username: session.user.username,
            continueQuery: query(token), declineQuery: query(Self.declined)))
    }

    /// What the consent page sends back to say yes: bound to the session's secret hash, the client and its redirect
    /// URI, so no other page can say it for the person.
    private func consentToken(_ session: SessionRecord, client: OAuthClientRecord, redirectURI: String) throws -> String {
        Base64URL.encode(try HMAC.sha256(key: session.tokenHash, message: Array("consent \(client.clientID) \(redirectURI)".utf8)))
    }

    /// `uri` with `parameters` added to its query (the ones with a value).
    static func redirect(to uri: String, _ parameters: [(String, String?)]) -> String {
        let added = parameters.compactMap { name, value in value.map { "\(name)=\(URIText.escape($0))" } }.joined(separator: "&")
        guard !added.isEmpty else { return uri }
        return uri + (uri.contains("?") ? "&" : "?") + added
    }
}

/// An authorization request's parameters checked against its client: errors that go back to the redirect URI.
struct AuthorizationChecks {
    let redirectURI: String
    let state: String?
    let scopes: [String]
    let nonce: String?
    let codeChallenge: String?
    let prompt: Set<String>
    let maxAge: Int?

    private static let prompts: Set<String> = ["none", "login", "consent", "select_account"]

    init(_ parameters: AuthorizationParameters, client: OAuthClientRecord) throws(AuthorizationError) {
        redirectURI = parameters["redirect_uri"] ?? ""
        state = parameters["state"]
        if let name = parameters.repeated.sorted().first { throw .invalidRequest("\(name) is given more than once") }
        if parameters["request"] != nil { throw AuthorizationError("request_not_supported", "request objects are not supported") }
        if parameters["request_uri"] != nil { throw AuthorizationError("request_uri_not_supported", "request_uri is not supported") }
        guard let responseType = parameters["response_type"] else { throw .invalidRequest("response_type is missing") }
        guard responseType == "code" else {
            throw AuthorizationError("unsupported_response_type", "only the authorization code flow (response_type=code) is served, not \(responseType.prefix(40))")
        }
        if let mode = parameters["response_mode"], mode != "query" { throw .invalidRequest("response_mode is query only") }
        let asked = (parameters["scope"] ?? "").split(separator: " ").map(String.init)
        guard asked.contains("openid") else { throw AuthorizationError("invalid_scope", "scope must include openid") }
        // Scopes the client may not have, or no one knows, are left out (RFC 6749 §3.3).
        var scopes: [String] = []
        for scope in asked where client.scopes.contains(scope) && !scopes.contains(scope) { scopes.append(scope) }
        self.scopes = scopes
        if let method = parameters["code_challenge_method"], method != "S256" {
            throw .invalidRequest("code_challenge_method must be S256 (plain is refused)")
        }
        codeChallenge = parameters["code_challenge"]
        if let codeChallenge {
            guard PKCE.isChallenge(codeChallenge) else { throw .invalidRequest("code_challenge is not an S256 challenge (43 characters of base64url)") }
            guard parameters["code_challenge_method"] == "S256" else { throw .invalidRequest("code_challenge_method=S256 is required with code_challenge") }
        } else if client.isPublic {
            throw .invalidRequest("a public client must send a PKCE code_challenge (S256)")
        }
        nonce = parameters["nonce"]
        if let nonce, nonce.utf8.count > 512 { throw .invalidRequest("nonce is longer than 512 bytes") }
        prompt = Set((parameters["prompt"] ?? "").split(separator: " ").map(String.init))
        if let unknown = prompt.subtracting(Self.prompts).first { throw .invalidRequest("prompt \(unknown.prefix(40)) is not known") }
        if prompt.contains("none"), prompt.count > 1 { throw .invalidRequest("prompt=none cannot be given with another prompt") }
        if let text = parameters["max_age"] {
            guard let seconds = Int(text), seconds >= 0 else { throw .invalidRequest("max_age is a number of seconds") }
            maxAge = seconds
        } else {
            maxAge = nil
        }
    }

    /// Whether `session` answers the request without a new sign-in.
    func accepts(_ session: SessionRecord, now: Date) -> Bool {
        if prompt.contains("login") || prompt.contains("select_account") { return false }
        if let maxAge, now.timeIntervalSince(session.createdAt) > Double(maxAge) { return false }
        return true
    }

    /// `prompt` as the request repeats it after a sign-in: what asked for the sign-in taken off.
    var promptAfterSignIn: String? {
        let left = prompt.subtracting(["login", "select_account"])
        return left.isEmpty ? nil : left.sorted().joined(separator: " ")
    }
}

/// Percent-encoding for a query's names and values (RFC 3986 unreserved characters kept).
enum URIText {
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                escaped += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return escaped
    }
}

private extension String {
    func leftPadded(to length: Int) -> String { count >= length ? self : String(repeating: "0", count: length - count) + self }
}
