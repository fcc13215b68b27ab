import Foundation
import WebAuthn
import Testing
@testable import LatchkeyServer

@Suite("Configuration")
struct ConfigurationTests {
    /// The repository's own default file.
    static let defaultFile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Config/latchkey.json").path

    func load(_ environment: [String: String]) throws -> LatchkeyConfiguration {
        try LatchkeyConfiguration.load(environment: environment, defaultFile: Self.defaultFile)
    }

    func expectError(_ environment: [String: String], naming key: String) {
        let error = #expect(throws: ConfigurationError.self) { try load(environment) }
        #expect(error?.message.contains(key) == true, "message should name \(key): \(error?.message ?? "")")
    }

    func temporaryFile(_ contents: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-\(UUID().uuidString).json").path
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func shippedDefaultsWorkOnLocalhost() throws {
        let configuration = try load([:])
        #expect(configuration.rpID == "localhost")
        #expect(configuration.port == 8080)
        #expect(configuration.origins == ["http://localhost:8080"])
        #expect(configuration.challengeTimeout == 300)
        #expect(configuration.conformanceMode == false)
    }

    @Test func environmentOverridesEveryNamedKey() throws {
        let configuration = try load([
            "LATCHKEY_HOST": "0.0.0.0", "LATCHKEY_PORT": "9443", "LATCHKEY_RP_ID": "example.com",
            "LATCHKEY_RP_NAME": "Example", "LATCHKEY_ORIGINS": "https://example.com, https://login.example.com",
            "LATCHKEY_DATABASE": "/tmp/x.sqlite", "LATCHKEY_APPLE_APP_IDS": "ABCDE12345.com.example.app",
            "LATCHKEY_CONFORMANCE_MODE": "true", "LATCHKEY_CHALLENGE_TIMEOUT": "60",
        ])
        #expect(configuration.host == "0.0.0.0")
        #expect(configuration.port == 9443)
        #expect(configuration.rpID == "example.com")
        #expect(configuration.rpName == "Example")
        #expect(configuration.origins == ["https://example.com", "https://login.example.com"])
        #expect(configuration.database == "/tmp/x.sqlite")
        #expect(configuration.appleAppIDs == ["ABCDE12345.com.example.app"])
        #expect(configuration.conformanceMode)
        #expect(configuration.challengeTimeout == 60)
    }

    @Test func originFollowsThePortWhenNotConfigured() throws {
        #expect(try load(["LATCHKEY_PORT": "18080"]).origins == ["http://localhost:18080"])
        #expect(try load(["LATCHKEY_RP_ID": "example.com"]).origins == ["https://example.com"])
    }

    @Test func environmentNamesFollowTheKeys() {
        #expect(LatchkeyConfiguration.environmentName(of: "rpID") == "LATCHKEY_RP_ID")
        #expect(LatchkeyConfiguration.environmentName(of: "appleAppIDs") == "LATCHKEY_APPLE_APP_IDS")
        #expect(LatchkeyConfiguration.environmentName(of: "challengeTimeout") == "LATCHKEY_CHALLENGE_TIMEOUT")
    }

    @Test func badValuesNameTheirKey() {
        expectError(["LATCHKEY_PORT": "notaport"], naming: "LATCHKEY_PORT")
        expectError(["LATCHKEY_PORT": "70000"], naming: "LATCHKEY_PORT")
        expectError(["LATCHKEY_CONFORMANCE_MODE": "maybe"], naming: "LATCHKEY_CONFORMANCE_MODE")
        expectError(["LATCHKEY_CHALLENGE_TIMEOUT": "0"], naming: "LATCHKEY_CHALLENGE_TIMEOUT")
        expectError(["LATCHKEY_ORIGINS": "localhost:8080"], naming: "LATCHKEY_ORIGINS")
        expectError(["LATCHKEY_ORIGINS": "https://evil.example"], naming: "LATCHKEY_ORIGINS")
        expectError(["LATCHKEY_RP_ID": "example.com", "LATCHKEY_ORIGINS": "http://example.com"], naming: "LATCHKEY_ORIGINS")
        expectError(["LATCHKEY_APPLE_APP_IDS": "com.example.app"], naming: "LATCHKEY_APPLE_APP_IDS")
        expectError(["LATCHKEY_RP_ID": "https://example.com"], naming: "LATCHKEY_RP_ID")
    }

    @Test func attestationSettingsBecomeAPolicyValue() throws {
        let configuration = try load([
            "LATCHKEY_ATTESTATION_POLICY": "trusted-only", "LATCHKEY_ALLOW_SHA1": "true",
            "LATCHKEY_ALLOWED_AAGUIDS": "ee882879-721c-4913-9775-3dfcce97072a",
            "LATCHKEY_DENIED_AAGUIDS": "00000000000000000000000000000000",
        ])
        let policy = configuration.attestation
        #expect(policy.mode == .trustedOnly)
        #expect(policy.allowSHA1)
        #expect(policy.allowedAAGUIDs == [AAGUID.bytes("ee882879721c491397753dfcce97072a")!])
        #expect(policy.deniedAAGUIDs == [[UInt8](repeating: 0, count: 16)])
        #expect(configuration.relyingParty.algorithms.contains(.rs1))
        #expect(try !load([:]).relyingParty.algorithms.contains(.rs1), "RS1 is off by default")
        expectError(["LATCHKEY_ATTESTATION_POLICY": "trust-me"], naming: "LATCHKEY_ATTESTATION_POLICY")
        expectError(["LATCHKEY_DENIED_AAGUIDS": "not-an-aaguid"], naming: "LATCHKEY_DENIED_AAGUIDS")
    }

    @Test func anotherFileIsReadAndCheckedStrictly() throws {
        let good = try temporaryFile(#"{"port": 9000, "rpName": "From file", "conformanceMode": true}"#)
        let configuration = try load(["LATCHKEY_CONFIG": good, "LATCHKEY_RP_NAME": "From environment"])
        #expect(configuration.port == 9000)
        #expect(configuration.rpName == "From environment")
        #expect(configuration.conformanceMode)

        expectError(["LATCHKEY_CONFIG": try temporaryFile(#"{"prot": 9000}"#)], naming: "prot")
        expectError(["LATCHKEY_CONFIG": try temporaryFile(#"{"port": "9000"}"#)], naming: "port")
        expectError(["LATCHKEY_CONFIG": try temporaryFile(#"{"port": 9000"#)], naming: "not valid JSON")
        expectError(["LATCHKEY_CONFIG": "/nonexistent/latchkey.json"], naming: "LATCHKEY_CONFIG")
    }

    @Test func appleAppSiteAssociationListsConfiguredApps() {
        let association = AppleAppSiteAssociation(webCredentialApps: ["ABCDE12345.com.example.app"], appLinkApps: [])
        #expect(association.document == .object(["webcredentials": .object(["apps": .array([.string("ABCDE12345.com.example.app")])])]))
    }
}
