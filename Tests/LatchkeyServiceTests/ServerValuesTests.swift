import Foundation
import LatchkeyConfiguration
import LatchkeyStore
import Testing
import WebAuthn
@testable import LatchkeyService

/// What loaded settings mean for the verification core.
@Suite("Server values of the configuration")
struct ServerValuesTests {
    func loaded(_ environment: [String: String]) throws -> LoadedConfiguration {
        try ConfigurationLoader.load(environment: environment, defaultFile: "/nonexistent/latchkey.json")
    }

    @Test func settingsBecomeTheCoresValues() throws {
        let fingerprint = (0..<32).map { String(format: "%02X", $0 * 7 % 256) }.joined(separator: ":")
        let android = "android:apk-key-hash:" + Base64URL.encode((0..<32).map { UInt8($0 * 7 % 256) })
        let configuration = try loaded([
            "LATCHKEY_ATTESTATION_POLICY": "trusted-only", "LATCHKEY_ALLOW_SHA1": "true",
            "LATCHKEY_ALLOWED_AAGUIDS": "ee882879-721c-4913-9775-3dfcce97072a", "LATCHKEY_DENIED_AAGUIDS": "00000000000000000000000000000000",
            "LATCHKEY_RP_ID": "example.com", "LATCHKEY_ORIGINS": "https://example.com,https://login.example.com:8443",
            "LATCHKEY_APPLE_APP_IDS": "ABCDE12345.com.example.app,0123456789.com.example-2.App",
            "LATCHKEY_ANDROID_APPS": "com.example.app@\(fingerprint),com.example.app@\(fingerprint.lowercased()),com.example_2.a1@\(fingerprint)",
            "LATCHKEY_RELATED_ORIGINS": "https://example.co.uk,https://example.de:8443,http://shop.localhost:3000",
            "LATCHKEY_PASSKEY_ENROLL_URL": "https://example.com/account/passkeys?add=1", "LATCHKEY_PASSKEY_MANAGE_URL": "http://localhost:8080/a",
        ]).configuration
        let policy = configuration.attestation
        #expect(policy.mode == .trustedOnly && policy.allowSHA1)
        #expect(policy.allowedAAGUIDs == [try #require(AAGUID.bytes("ee882879721c491397753dfcce97072a"))])
        #expect(policy.deniedAAGUIDs == [[UInt8](repeating: 0, count: 16)])
        #expect(configuration.relyingParty.algorithms.contains(.rs1))
        #expect(configuration.androidApps.map(\.fingerprintText) == [fingerprint, fingerprint, fingerprint])
        #expect(configuration.relyingParty.origins == [
            "https://example.com", "https://login.example.com:8443", android,
            "https://example.co.uk", "https://example.de:8443", "http://shop.localhost:3000",
        ])
        let defaults = try loaded([:]).configuration.relyingParty
        #expect(defaults.origins == ["http://localhost:8080"] && !defaults.algorithms.contains(.rs1), "RS1 is off by default")
    }

    @Test func aSessionTooOldToAddAKeyIsToldHowOldInWords() throws {
        var policy = ServerPolicy.standard
        policy.addingKeysNeedsSignInWithin = 1
        let signedIn = Date(timeIntervalSince1970: 1_000_000)
        let session = SessionRecord(tokenHash: [1], userHandle: [2], createdAt: signedIn, expiresAt: signedIn + 3_600)
        try policy.requireRecentSignIn(of: session, now: signedIn + 1, adding: "a passkey")
        let refusal = #expect(throws: ServiceError.self) {
            try policy.requireRecentSignIn(of: session, now: signedIn + 2, adding: "a passkey")
        }
        #expect(refusal?.message == "sign in again to add a passkey: this session signed in 2 seconds ago, and adding one needs a sign-in within the last 1 second")
    }
}
