import Foundation
import LatchkeyStore
import Testing
import WebAuthn

@testable import LatchkeyService

/// The device authorization grant (RFC 8628) on the service, over a real SQLite store: a device polls while a person
/// approves or denies on the device page, and every answer a poll can get.
@Suite("OpenID device authorization")
struct OpenIDDeviceAuthorizationTests {
    /// A signed-in person and a public client allowed the device grant.
    struct Setup {
        let harness: ServiceHarness
        let session: SessionWithUser
        let client: IssuedOAuthClient
        let start = Date()

        init(device: Bool = true, allowedGroups: [String]? = nil) async throws {
            harness = try ServiceHarness()
            let registered = try await harness.register("erin")
            session = try #require(try await harness.caller(signedInBy: registered).identity)
            client = try await harness.service.openIDClients.create(
                NewOAuthClient(
                    name: "TV App", redirectURIs: device ? [] : ["https://tv.example/cb"], public: true, scopes: ["openid", "profile", "offline_access"],
                    allowedGroups: allowedGroups, deviceAuthorization: device),
                caller: harness.caller())
        }

        var provider: OpenIDProvider { harness.service.openID }
        var credentials: OpenIDProvider.ClientCredentials { .init(clientID: client.client.clientID, secret: nil) }

        func begin() async throws -> DeviceAuthorizationStarted {
            try await provider.startDeviceAuthorization(["scope": "openid profile offline_access"], credentials: credentials, now: start)
        }

        func poll(_ started: DeviceAuthorizationStarted, after seconds: TimeInterval) async throws -> IssuedTokens {
            try await provider.token(
                ["grant_type": OpenIDProvider.deviceCodeGrantType, "device_code": started.deviceCode], credentials: credentials,
                origin: .system("test"), now: start.addingTimeInterval(seconds))
        }

        func pollError(_ started: DeviceAuthorizationStarted, after seconds: TimeInterval) async -> OAuthError.Code? {
            do {
                _ = try await poll(started, after: seconds)
                return nil
            } catch let error as OAuthError {
                return error.code
            } catch {
                Issue.record("not an OAuth error: \(error)")
                return nil
            }
        }

        /// The device page's confirmation for `userCode`, as the signed-in person sees it.
        func confirmation(_ userCode: String, after seconds: TimeInterval = 1) async throws -> DeviceConfirmation {
            let outcome = try await provider.devicePage(
                userCode: userCode, answer: nil, session: session, origin: .system("test"), now: start.addingTimeInterval(seconds))
            guard case .confirm(let confirmation) = outcome else {
                Issue.record("not a confirmation: \(outcome)")
                throw CancellationError()
            }
            return confirmation
        }

        func answer(_ userCode: String, _ decision: String, token: String, after seconds: TimeInterval = 2) async throws -> DevicePageOutcome {
            try await provider.devicePage(
                userCode: userCode, answer: (decision, token), session: session, origin: .system("test"), now: start.addingTimeInterval(seconds))
        }
    }

    @Test func anApprovedDeviceGetsItsTokensOnceAndPollingTooFastSlowsItDown() async throws {
        let setup = try await Setup()
        let started = try await setup.begin()
        #expect(started.userCode.count == 9 && started.userCode.contains("-") && started.interval == 5 && started.expiresIn == 600)
        #expect(started.verificationURIComplete.hasSuffix("/oidc/device?user_code=\(started.userCode)"))

        #expect(await setup.pollError(started, after: 0) == .authorizationPending)
        #expect(await setup.pollError(started, after: 2) == .slowDown, "sooner than five seconds")
        #expect(await setup.pollError(started, after: 8) == .slowDown, "the interval is ten seconds now")
        #expect(await setup.pollError(started, after: 30) == .authorizationPending)

        // Typed in lower case, without its dash: the same code.
        let typed = started.userCode.lowercased().replacingOccurrences(of: "-", with: "")
        let confirmation = try await setup.confirmation(typed)
        #expect(confirmation.clientName == "TV App" && confirmation.username == "erin" && confirmation.userCode == started.userCode)
        guard case .decided(approved: true, _) = try await setup.answer(typed, "approve", token: confirmation.answerToken) else {
            Issue.record("not approved")
            return
        }
        let tokens = try await setup.poll(started, after: 45)
        #expect(tokens.idToken != nil && tokens.refreshToken != nil)
        #expect(try await setup.provider.userInfo(accessToken: tokens.accessToken, now: setup.start.addingTimeInterval(46)).profile.preferredUsername == "erin")

        // The device code again: a replay, which revokes what it gave.
        #expect(await setup.pollError(started, after: 50) == .invalidGrant)
        await #expect(throws: OAuthError.self) {
            _ = try await setup.provider.userInfo(accessToken: tokens.accessToken, now: setup.start.addingTimeInterval(51))
        }
    }

    @Test func aDeniedOrExpiredDeviceGetsNoTokens() async throws {
        let setup = try await Setup()
        let denied = try await setup.begin()
        let confirmation = try await setup.confirmation(denied.userCode)
        guard case .decided(approved: false, _) = try await setup.answer(denied.userCode, "deny", token: confirmation.answerToken) else {
            Issue.record("not denied")
            return
        }
        #expect(await setup.pollError(denied, after: 10) == .accessDenied)
        // Answered: the page does not take the code again.
        guard case .enterCode(let problem?) = try await setup.answer(denied.userCode, "approve", token: confirmation.answerToken) else {
            Issue.record("a decided code was taken again")
            return
        }
        #expect(problem.contains("expired or was answered"))

        let expired = try await setup.begin()
        #expect(await setup.pollError(expired, after: 601) == .expiredToken)
        let late = try await setup.provider.devicePage(
            userCode: expired.userCode, answer: nil, session: setup.session, origin: .system("test"), now: setup.start.addingTimeInterval(601))
        guard case .enterCode(_?) = late else {
            Issue.record("an expired code was offered for approval")
            return
        }
    }

    @Test func anAnswerMustComeFromThePageForThisSessionAndCode() async throws {
        let setup = try await Setup()
        let first = try await setup.begin(), second = try await setup.begin()
        #expect(first.userCode != second.userCode)
        let firstToken = try await setup.confirmation(first.userCode).answerToken
        // The first page's token does not answer for the second code, nor does a made-up one.
        for token in [firstToken, "forged"] {
            guard case .enterCode(_?) = try await setup.answer(second.userCode, "approve", token: token) else {
                Issue.record("an answer without this page's token was taken")
                return
            }
        }
        #expect(await setup.pollError(second, after: 10) == .authorizationPending)
        // Without a session, the page asks for a sign-in first and does not look the code up.
        let anonymous = try await setup.provider.devicePage(userCode: second.userCode, answer: nil, session: nil, origin: .system("test"))
        guard case .signIn(let prompt) = anonymous else {
            Issue.record("no sign-in asked")
            return
        }
        #expect(prompt.endpoint == "device" && prompt.continueQuery == "user_code=\(second.userCode)")
        for malformed in ["BCDF-GHJ", "AEIO-UBCD", "BCDF-GHJK-L"] {
            guard case .enterCode(_?) = try await setup.provider.devicePage(
                userCode: malformed, answer: nil, session: setup.session, origin: .system("test"))
            else {
                Issue.record("\(malformed) was taken as a code")
                return
            }
        }
    }

    @Test func aClientMustBeAllowedTheGrantAndItsDeviceCodesAreItsOwn() async throws {
        let setup = try await Setup(device: false)
        let refused = await #expect(throws: OAuthError.self) { _ = try await setup.begin() }
        #expect(refused?.code == .unauthorizedClient)
        // An ordinary client needs a redirect URI; one allowed the device grant alone does not.
        await #expect(throws: ServiceError.self) {
            _ = try await setup.harness.service.openIDClients.create(
                NewOAuthClient(name: "No way back", redirectURIs: []), caller: setup.harness.caller())
        }

        let other = try await Setup()
        let started = try await other.begin()
        let thief = try await other.harness.service.openIDClients.create(
            NewOAuthClient(name: "Thief", redirectURIs: [], public: true, deviceAuthorization: true), caller: other.harness.caller())
        let stolen = await #expect(throws: OAuthError.self) {
            _ = try await other.provider.token(
                ["grant_type": OpenIDProvider.deviceCodeGrantType, "device_code": started.deviceCode],
                credentials: .init(clientID: thief.client.clientID, secret: nil), origin: .system("test"))
        }
        #expect(stolen?.code == .invalidGrant)
    }

    @Test func aClientForSomeGroupsRefusesOthersOnTheDevicePage() async throws {
        let setup = try await Setup(allowedGroups: ["staff"])
        let started = try await setup.begin()
        let outcome = try await setup.provider.devicePage(
            userCode: started.userCode, answer: nil, session: setup.session, origin: .system("test"), now: setup.start)
        guard case .denied(let message) = outcome else {
            Issue.record("erin is in no group, yet was asked")
            return
        }
        #expect(message.contains("staff"))
        #expect(await setup.pollError(started, after: 10) == .authorizationPending)
    }
}
