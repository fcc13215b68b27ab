import Foundation
import LatchkeyStore
import WebAuthn

/// What the device authorization endpoint answers (RFC 8628 §3.2).
package struct DeviceAuthorizationStarted: Sendable {
    package let deviceCode: String
    /// As the person types it: eight letters, shown as two groups of four.
    package let userCode: String
    package let verificationURI: String
    /// The verification URI with the user code in it, for a QR code.
    package let verificationURIComplete: String
    package let expiresIn: Int
    package let interval: Int
}

/// What the device page (the verification URI) shows the person.
package enum DevicePageOutcome: Sendable {
    /// The form for the user code, with why the last one was not taken, if it was not.
    case enterCode(problem: String?)
    /// The person signs in first: the sign-in page, coming back to the device page with the code.
    case signIn(AuthorizationPrompt)
    /// The question: does this client on your device get in, as you?
    case confirm(DeviceConfirmation)
    /// The person may not use this client (not in any of its groups).
    case denied(String)
    /// The answer was taken: the device gets its tokens, or `access_denied`, at its next poll.
    case decided(approved: Bool, clientName: String)
}

/// The device page's question, and the answer's proof that this page asked it of this session.
package struct DeviceConfirmation: Sendable {
    package let clientName: String
    package let scopes: [String]
    package let username: String
    /// The user code, as shown on the device.
    package let userCode: String
    package let answerToken: String
}

extension OpenIDProvider {
    /// How long a device code lives.
    static let deviceCodeLifetime: TimeInterval = 600
    /// Seconds a device waits between polls at first (RFC 8628 §3.2's default); each poll sooner adds five.
    static let devicePollInterval = 5
    /// The user code's letters: consonants only (no vowel, so no word is spelled), none that looks like a digit
    /// (RFC 8628 §6.1). Eight of twenty letters are about 34.6 bits; guessing one needs a signed-in account, and a
    /// code lives ten minutes.
    static let userCodeAlphabet = Array("BCDFGHJKLMNPQRSTVWXZ".utf8)
    static let userCodeLength = 8
    /// The grant type of a device's polls.
    package static let deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// The device authorization endpoint (RFC 8628 §3.1): a device code to poll with and a user code for the person,
    /// for a client allowed the grant.
    package func startDeviceAuthorization(_ form: [String: String], credentials: ClientCredentials, now: Date = Date()) async throws
        -> DeviceAuthorizationStarted
    {
        let client = try await authenticate(credentials)
        guard client.deviceAuthorization else {
            throw OAuthError(.unauthorizedClient, "client \(client.clientID) may not use the device authorization grant: an administrator allows it per client")
        }
        let asked = (form["scope"] ?? "").split(separator: " ").map(String.init)
        guard asked.contains("openid") else { throw OAuthError(.invalidScope, "scope must include openid") }
        var scopes: [String] = []
        for scope in asked where client.scopes.contains(scope) && !scopes.contains(scope) { scopes.append(scope) }
        let grantID = try SecureRandom.bytes(count: ProviderToken.grantIDLength)
        let deviceCode = try ProviderToken(grantID: grantID)
        // A user code is unique among the tenant's live ones: another draw when it is not (about one in 10^10).
        for _ in 0..<3 {
            let userCode = try Self.newUserCode()
            let record = OAuthDeviceAuthorizationRecord(
                grantID: grantID, deviceCodeHash: deviceCode.hash, userCodeHash: Self.userCodeHash(userCode), clientID: client.clientID,
                scopes: scopes, createdAt: now, expiresAt: now.addingTimeInterval(Self.deviceCodeLifetime), interval: Self.devicePollInterval)
            do {
                try await service.store.saveOAuthDeviceAuthorization(record)
            } catch let error as StoreError where error.code == .nameTaken {
                continue
            }
            let shown = Self.displayed(userCode), page = issuer + Endpoint.device.rawValue
            return DeviceAuthorizationStarted(
                deviceCode: deviceCode.text, userCode: shown, verificationURI: page,
                verificationURIComplete: page + "?user_code=" + shown, expiresIn: Int(Self.deviceCodeLifetime),
                interval: Self.devicePollInterval)
        }
        throw ServiceError(.conflict, "no free user code was drawn; try again")
    }

    /// A device's poll at the token endpoint (RFC 8628 §3.4, §3.5): tokens once the person approved, else why not yet.
    func pollDevice(_ form: [String: String], client: OAuthClientRecord, origin: EventOrigin, now: Date) async throws -> IssuedTokens {
        guard let text = form["device_code"] else { throw OAuthError(.invalidRequest, "device_code is missing") }
        guard let code = ProviderToken(text), let device = try await service.store.oauthDeviceAuthorization(grantID: code.grantID),
              device.clientID == client.clientID, code.matches(device.deviceCodeHash)
        else { throw OAuthError(.invalidGrant, "this device code is not one this issuer gave client \(client.clientID)") }
        switch device.decision {
        case nil:
            guard device.expiresAt > now else { throw OAuthError(.expiredToken, "this device code expired: start again") }
            if let last = device.polledAt, now < last.addingTimeInterval(TimeInterval(device.interval)) {
                let slower = device.interval + Self.devicePollInterval
                try await service.store.noteOAuthDevicePoll(grantID: device.grantID, at: now, interval: slower)
                throw OAuthError(.slowDown, "polled sooner than every \(device.interval) seconds: wait \(slower) seconds between polls from now on")
            }
            try await service.store.noteOAuthDevicePoll(grantID: device.grantID, at: now, interval: device.interval)
            throw OAuthError(.authorizationPending, "the person has not approved this device yet")
        case .denied:
            throw OAuthError(.accessDenied, "the person denied this device")
        case .approved:
            guard let found = try await lookup(code) else { throw OAuthError(.invalidGrant, "this device code's grant is gone") }
            return try await redeem(found, now: now, origin: origin, what: "device code") { _ in }
        }
    }

    /// The device page (RFC 8628 §3.3): the person's user code, a passkey sign-in, and their answer. `answer` is what the
    /// page posted back (`approve` or `deny`, with its token), nil on a GET.
    package func devicePage(
        userCode typed: String?, answer: (decision: String, token: String)?, session: SessionWithUser?, origin: EventOrigin, now: Date = Date()
    ) async throws -> DevicePageOutcome {
        guard let typed, !typed.isEmpty else { return .enterCode(problem: nil) }
        guard let userCode = Self.normalizedUserCode(typed) else {
            return .enterCode(problem: "A code is eight letters, like BCDF-GHJK, as your device shows it.")
        }
        let shown = Self.displayed(userCode)
        // The code is looked up for signed-in people only, so guessing codes takes an account.
        guard let session else {
            return .signIn(AuthorizationPrompt(
                clientName: "your device", scopes: [], loginHint: nil, username: nil, continueQuery: "user_code=\(shown)", declineQuery: nil,
                endpoint: "device"))
        }
        let unusable = DevicePageOutcome.enterCode(problem: "\(shown) is not a code waiting for approval: it expired or was answered. Check the code your device shows now.")
        guard let device = try await service.store.oauthDeviceAuthorization(userCodeHash: Self.userCodeHash(userCode)),
              device.decision == nil, device.expiresAt > now,
              let client = try await service.store.oauthClient(id: device.clientID)
        else { return unusable }
        if case .denied(let message)? = try await refusal(of: session, by: client, origin: origin, now: now) { return .denied(message) }
        let token = try deviceAnswerToken(session.session, grantID: device.grantID)
        guard let answer else {
            return .confirm(DeviceConfirmation(
                clientName: client.name, scopes: device.scopes, username: session.user.username, userCode: shown, answerToken: token))
        }
        guard constantTimeEquals(Array(answer.token.utf8), Array(token.utf8)), ["approve", "deny"].contains(answer.decision) else {
            return .enterCode(problem: "That answer did not come from this page for \(shown); look at the code again.")
        }
        let approved = answer.decision == "approve"
        let grant = approved ? OAuthGrantRecord(
            id: device.grantID, clientID: client.clientID, userHandle: session.user.handle, scopes: device.scopes, redirectURI: "",
            nonce: nil, codeChallenge: nil, authTime: session.session.createdAt, methods: session.session.methods,
            codeHash: device.deviceCodeHash, codeExpiresAt: device.expiresAt, createdAt: now, expiresAt: device.expiresAt) : nil
        guard try await service.store.decideOAuthDeviceAuthorization(
            grantID: device.grantID, approved ? .approved : .denied, by: session.user.handle, grant: grant, now: now)
        else { return unusable }
        return .decided(approved: approved, clientName: client.name)
    }

    /// What the device page posts back with the person's answer: bound to the session's secret hash and the request, so
    /// no other page can answer for the person.
    private func deviceAnswerToken(_ session: SessionRecord, grantID: [UInt8]) throws -> String {
        Base64URL.encode(try HMAC.sha256(key: session.tokenHash, message: Array("device \(Base64URL.encode(grantID))".utf8)))
    }

    // MARK: User codes

    private static func newUserCode() throws -> String {
        // Rejection sampling: of a byte's 256 values, the 240 below a multiple of 20 map evenly.
        var letters: [UInt8] = []
        while letters.count < userCodeLength {
            for byte in try SecureRandom.bytes(count: 16) where byte < 240 && letters.count < userCodeLength {
                letters.append(userCodeAlphabet[Int(byte) % userCodeAlphabet.count])
            }
        }
        return String(decoding: letters, as: UTF8.self)
    }

    /// The code as typed, upper-cased, with spaces and dashes taken out; nil when it cannot be one.
    static func normalizedUserCode(_ typed: String) -> String? {
        var letters: [UInt8] = []
        for byte in typed.utf8 {
            if byte == UInt8(ascii: "-") || byte == UInt8(ascii: " ") { continue }
            let upper = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) ? byte - 32 : byte
            guard userCodeAlphabet.contains(upper), letters.count < userCodeLength else { return nil }
            letters.append(upper)
        }
        return letters.count == userCodeLength ? String(decoding: letters, as: UTF8.self) : nil
    }

    private static func displayed(_ code: String) -> String { "\(code.prefix(4))-\(code.dropFirst(4))" }

    private static func userCodeHash(_ code: String) -> [UInt8] { Digest.sha256(Array(code.utf8)) }
}
