import Foundation
import LatchkeyStore
import Testing
import WebAuthn

@testable import LatchkeyService

/// The OpenID provider's rules called on the service, over a real SQLite store, without HTTP: what the authorization
/// endpoint decides, what a code and a refresh token are worth, and what a client may be.
@Suite("OpenID provider")
struct OpenIDProviderTests {
    /// A registered person, signed in, and a confidential client of the harness's tenant.
    struct Setup {
        let harness: ServiceHarness
        let session: SessionWithUser
        let client: IssuedOAuthClient

        init(consent: Bool = false, scopes: [String]? = nil) async throws {
            harness = try ServiceHarness()
            let registered = try await harness.register("erin")
            session = try #require(try await harness.caller(signedInBy: registered).identity)
            client = try await harness.service.openIDClients.create(
                NewOAuthClient(name: "App", redirectURIs: ["https://app.example/cb"], scopes: scopes, consent: consent),
                caller: harness.caller())
        }

        var provider: OpenIDProvider { harness.service.openID }
        var credentials: OpenIDProvider.ClientCredentials { .init(clientID: client.client.clientID, secret: client.secret) }

        func parameters(_ extra: [String: String] = [:], verifier: String = Setup.verifier) -> AuthorizationParameters {
            var values = [
                "response_type": "code", "client_id": client.client.clientID, "redirect_uri": "https://app.example/cb",
                "scope": "openid profile offline_access", "state": "st", "nonce": "nn", "code_challenge": Setup.challenge(verifier),
                "code_challenge_method": "S256",
            ]
            for (name, value) in extra { values[name] = value }
            return AuthorizationParameters(values.map { (name: $0.key, value: $0.value) })
        }

        static let verifier = String(repeating: "v", count: 50)
        static func challenge(_ verifier: String) -> String { Base64URL.encode(Digest.sha256(Array(verifier.utf8))) }

        /// The code an authorization with a session redirected with.
        func code(_ extra: [String: String] = [:]) async throws -> String {
            guard case .redirect(let location) = try await provider.authorize(parameters(extra), session: session) else {
                Issue.record("no redirect")
                return ""
            }
            return try #require(Self.query(location)["code"])
        }

        func exchange(_ code: String, verifier: String? = Setup.verifier) async throws -> IssuedTokens {
            var form = ["grant_type": "authorization_code", "code": code, "redirect_uri": "https://app.example/cb"]
            form["code_verifier"] = verifier
            return try await provider.token(form, credentials: credentials, origin: .system("test"))
        }

        static func query(_ location: String) -> [String: String] {
            let items = URLComponents(string: location)?.queryItems ?? []
            return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        }
    }

    @Test func aCodeIsWorthTokensOnceAndItsReplayRevokesThem() async throws {
        let setup = try await Setup(scopes: ["openid", "profile", "offline_access"])
        let code = try await setup.code()
        let tokens = try await setup.exchange(code)
        #expect(tokens.refreshToken != nil && tokens.idToken != nil && tokens.scopes == ["openid", "profile", "offline_access"])
        #expect(try await setup.provider.userInfo(accessToken: tokens.accessToken).profile.preferredUsername == "erin")
        let replay = await #expect(throws: OAuthError.self) { _ = try await setup.exchange(code) }
        #expect(replay?.code == .invalidGrant)
        await #expect(throws: OAuthError.self) { _ = try await setup.provider.userInfo(accessToken: tokens.accessToken) }
    }

    @Test func aRotatedRefreshTokenPresentedAgainRevokesTheGrant() async throws {
        let setup = try await Setup(scopes: ["openid", "offline_access"])
        let first = try await setup.exchange(try await setup.code())
        let refresh = { (token: String) in
            try await setup.provider.token(["grant_type": "refresh_token", "refresh_token": token], credentials: setup.credentials, origin: .system("test"))
        }
        let second = try await refresh(try #require(first.refreshToken))
        #expect(second.idToken == nil, "a refresh signs nothing")
        await #expect(throws: OAuthError.self) { _ = try await refresh(try #require(first.refreshToken)) }
        let afterReuse = await #expect(throws: OAuthError.self) { _ = try await refresh(try #require(second.refreshToken)) }
        #expect(afterReuse?.code == .invalidGrant)
        let events = try await setup.harness.store.securityEvents(SecurityEventQuery(types: [.oauthTokenReused]))
        #expect(events.count == 1)
    }

    @Test func aCodeLivesSixtySeconds() async throws {
        let setup = try await Setup()
        let code = try await setup.code()
        let form = ["grant_type": "authorization_code", "code": code, "redirect_uri": "https://app.example/cb", "code_verifier": Setup.verifier]
        let late = await #expect(throws: OAuthError.self) {
            _ = try await setup.provider.token(form, credentials: setup.credentials, origin: .system("test"), now: Date().addingTimeInterval(61))
        }
        #expect(late?.code == .invalidGrant && late?.message.contains("expired") == true)
        // Refused for its age, not spent: in time, it still works.
        _ = try await setup.provider.token(form, credentials: setup.credentials, origin: .system("test"))
    }

    @Test func pkceIsCheckedAndPlainIsRefused() async throws {
        let setup = try await Setup()
        let wrong = await #expect(throws: OAuthError.self) { _ = try await setup.exchange(try await setup.code(), verifier: String(repeating: "w", count: 50)) }
        #expect(wrong?.code == .invalidGrant)
        await #expect(throws: OAuthError.self) { _ = try await setup.exchange(try await setup.code(), verifier: nil) }
        guard case .redirect(let location) = try await setup.provider.authorize(setup.parameters(["code_challenge_method": "plain"]), session: setup.session)
        else { Issue.record("no redirect"); return }
        #expect(Setup.query(location)["error"] == "invalid_request")
    }

    @Test func anUnregisteredRedirectURIIsRefusedWithoutARedirect() async throws {
        let setup = try await Setup()
        for uri in ["https://app.example/cb/", "https://app.example/CB", "https://app.example/cb?x", "https://evil.example/cb"] {
            guard case .refused = try await setup.provider.authorize(setup.parameters(["redirect_uri": uri]), session: setup.session) else {
                Issue.record("\(uri) was not refused with a page")
                continue
            }
        }
        guard case .refused = try await setup.provider.authorize(setup.parameters(["client_id": "nobody"]), session: setup.session) else {
            Issue.record("an unknown client was not refused with a page")
            return
        }
    }

    @Test func withoutASessionThePersonSignsInAndPromptNoneSaysSo() async throws {
        let setup = try await Setup()
        guard case .signIn(let prompt) = try await setup.provider.authorize(setup.parameters(["prompt": "login", "login_hint": "erin"]), session: setup.session)
        else { Issue.record("prompt=login did not ask for a sign-in"); return }
        #expect(prompt.loginHint == "erin" && !prompt.continueQuery.contains("prompt=") && prompt.continueQuery.contains("nonce=nn"))
        guard case .redirect(let location) = try await setup.provider.authorize(setup.parameters(["prompt": "none"]), session: nil) else {
            Issue.record("prompt=none without a session did not redirect"); return
        }
        #expect(Setup.query(location)["error"] == "login_required" && Setup.query(location)["state"] == "st")
    }

    @Test func consentIsBoundToTheSession() async throws {
        let setup = try await Setup(consent: true)
        guard case .consent(let prompt) = try await setup.provider.authorize(setup.parameters(), session: setup.session) else {
            Issue.record("no consent page"); return
        }
        let answered = AuthorizationParameters(
            (URLComponents(string: "?" + prompt.continueQuery)?.queryItems ?? []).map { (name: $0.name, value: $0.value ?? "") })
        guard case .redirect(let location) = try await setup.provider.authorize(answered, session: setup.session) else {
            Issue.record("consent given did not redirect"); return
        }
        #expect(Setup.query(location)["code"] != nil)
        // Another person's session cannot use the answer.
        let other = try await setup.harness.register("frank", on: try setup.harness.anotherAuthenticator())
        let otherSession = try #require(try await setup.harness.caller(signedInBy: other).identity)
        guard case .consent = try await setup.provider.authorize(answered, session: otherSession) else {
            Issue.record("a consent answer worked for another session"); return
        }
    }

    @Test func clientRulesRefuseWhatCouldBeAbused() async throws {
        let harness = try ServiceHarness()
        let bad: [NewOAuthClient] = [
            NewOAuthClient(name: "", redirectURIs: ["https://a.example/cb"]),
            NewOAuthClient(name: "x", redirectURIs: []),
            NewOAuthClient(name: "x", redirectURIs: ["http://a.example/cb"]),
            NewOAuthClient(name: "x", redirectURIs: ["https://a.example/cb#f"]),
            NewOAuthClient(name: "x", redirectURIs: ["javascript:alert(1)"]),
            NewOAuthClient(name: "x", redirectURIs: ["https://a.example/c b"]),
            NewOAuthClient(name: "x", redirectURIs: ["https://a.example/cb"], scopes: ["profile"]),
            NewOAuthClient(name: "x", redirectURIs: ["https://a.example/cb"], accessTokenLifetime: 5),
        ]
        for input in bad {
            await #expect(throws: ServiceError.self, "\(input.redirectURIs) \(input.name)") {
                _ = try await harness.service.openIDClients.create(input, caller: harness.caller())
            }
        }
        let native = try await harness.service.openIDClients.create(
            NewOAuthClient(name: "iOS", redirectURIs: ["com.example.app:/oauth", "http://127.0.0.1:9000/cb"], public: true), caller: harness.caller())
        #expect(native.secret == nil && native.client.isPublic)
    }

    @Test func tokensAreTheirGrantsIDAndASecret() throws {
        let grant = try SecureRandom.bytes(count: 16)
        let token = try ProviderToken(grantID: grant)
        let read = try #require(ProviderToken(token.text))
        #expect(read.grantID == grant && read.matches(token.hash) && token.text.count == 64)
        #expect(ProviderToken(String(token.text.dropLast())) == nil)
        #expect(ProviderToken(String(repeating: "!", count: 64)) == nil)
        #expect(!read.matches(nil) && !read.matches(Digest.sha256([1])))
        #expect(PKCE.verifies(Setup.verifier, challenge: Setup.challenge(Setup.verifier)))
        #expect(!PKCE.verifies("short", challenge: Setup.challenge("short")), "a verifier is 43 to 128 characters")
        #expect(URIText.escape("a b&c=d/é") == "a%20b%26c%3Dd%2F%C3%A9")
    }
}
