import Foundation
import LatchkeyJSON
import LatchkeyStore
import LatchkeyTokens
import WebAuthn

/// What RP-initiated logout does with a request (OpenID Connect RP-Initiated Logout 1.0).
package enum LogoutOutcome: Sendable {
    /// The session ended (when there was one) and the browser goes back to the client.
    case redirect(String)
    /// The session ended (when there was one); the page says so.
    case signedOut
    /// Nothing ended yet: the page asks the person, with `reason` when the request could not be trusted to redirect.
    case confirm(reason: String?)
}

extension OpenIDProvider {
    /// Logout with `parameters`, for the browser's `session`: with a valid `id_token_hint` of a client of this issuer,
    /// the session ends, and with one of that client's registered `post_logout_redirect_uri` the browser goes there
    /// (with `state`). Anything else never redirects: the page asks the person, who ends the session with `confirmed`.
    package func logout(
        _ parameters: AuthorizationParameters, session: SessionWithUser?, confirmed: Bool, caller: Caller, now: Date = Date()
    ) async throws -> LogoutOutcome {
        if confirmed {
            try await end(session, caller: caller)
            return .signedOut
        }
        guard let hint = parameters["id_token_hint"] else {
            return .confirm(reason: parameters["post_logout_redirect_uri"] == nil ? nil : "the request has no id_token_hint")
        }
        guard let claims = try await hintClaims(hint), let clientID = claims.audience,
              let client = try await service.store.oauthClient(id: clientID)
        else { return .confirm(reason: "the id_token_hint is not a token this issuer signed") }
        if let asked = parameters["client_id"], asked != clientID {
            return .confirm(reason: "client_id is not the id_token_hint's audience")
        }
        let target = parameters["post_logout_redirect_uri"]
        if let target, !client.postLogoutRedirectURIs.contains(target) {
            return .confirm(reason: "\(target.prefix(200).debugDescription) is not a post-logout redirect URI registered for \(client.name)")
        }
        // Only the session of the person the hint names ends; a hint of someone else ends nothing and sends no one back.
        if let session {
            guard Base64URL.encode(session.user.handle) == claims.subject else {
                return .confirm(reason: "the id_token_hint names someone else than who is signed in here")
            }
            try await end(session, caller: caller)
        }
        guard let target else { return .signedOut }
        return .redirect(Self.redirect(to: target, [("state", parameters["state"])]))
    }

    private func end(_ session: SessionWithUser?, caller: Caller) async throws {
        guard let session else { return }
        try await service.store.deleteSessions(
            tokenHashes: [session.session.tokenHash],
            recording: [try service.events.event(.sessionEnded, caller.origin, user: session.user, detail: "signed out by an OpenID client")])
    }

    /// The subject and audience of an ID token this issuer signed (its expiry aside: a hint may be old).
    private func hintClaims(_ token: String) async throws -> (subject: String, audience: String?)? {
        struct Hint: Decodable {
            let iss: String
            let sub: String
            let aud: Audience
        }
        enum Audience: Decodable {
            case one(String), several([String])
            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let one = try? container.decode(String.self) { self = .one(one) } else { self = .several(try container.decode([String].self)) }
            }
        }
        guard let verified = try? JSONWebToken.verify(token, keys: try await service.tokens.keySet().keys),
              let hint = try? verified.claims.withUnsafeBytes({ try StrictJSONDecoder.decode(Hint.self, from: $0) }), hint.iss == issuer
        else { return nil }
        switch hint.aud {
        case .one(let audience): return (hint.sub, audience)
        case .several(let audiences): return (hint.sub, audiences.count == 1 ? audiences[0] : nil)
        }
    }
}
