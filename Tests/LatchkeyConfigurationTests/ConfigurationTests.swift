import Configuration
import Foundation
import Synchronization
import Testing
import WebAuthn
@testable import LatchkeyConfiguration

@Suite("Configuration")
struct ConfigurationTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The repository's own default file.
    static let defaultFile = repository.appendingPathComponent("Config/latchkey.json").path
    /// A default file that does not exist: only the environment and the defaults count.
    static let noFile = "/nonexistent/latchkey.json"

    /// `environment` with a temporary file of `json` as `LATCHKEY_CONFIG`, when there is JSON.
    func environment(_ environment: [String: String], file json: String?) throws -> [String: String] {
        try json.map { environment.merging(["LATCHKEY_CONFIG": try temporaryFile($0)]) { $1 } } ?? environment
    }

    func loaded(_ environment: [String: String], file json: String? = nil, defaultFile: String = noFile) throws -> LoadedConfiguration {
        try ConfigurationLoader.load(environment: self.environment(environment, file: json), defaultFile: defaultFile)
    }

    /// The message of a configuration that must be refused, `FILE` standing for the path of the file of `json`.
    func refusal(_ environment: [String: String], file json: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let environment = try self.environment(environment, file: json)
        let error = #expect(throws: ConfigurationError.self, sourceLocation: sourceLocation) {
            try ConfigurationLoader.load(environment: environment, defaultFile: Self.noFile)
        }
        let message = error?.message ?? ""
        return json == nil ? message : message.replacingOccurrences(of: environment["LATCHKEY_CONFIG"] ?? "", with: "FILE")
    }

    func temporaryFile(_ contents: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-\(UUID().uuidString).json").path
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    // MARK: - Sources, precedence, types

    @Test func withoutFileOrVariablesEveryKeyHasItsDefault() throws {
        let result = try loaded([:])
        #expect(result.configuration == LatchkeyConfiguration().resolvingPaths(against: result.home))
        let derived = [
            "origins": "from rpID and port", "tokenIssuer": "the first origin", "tokenAudience": "from rpID",
            "consoleOrigin": "from adminAddress or rpID",
        ]
        for key in LatchkeyConfiguration.keys {
            #expect(result.sources[key.name] == derived[key.name].map(ConfigurationSource.derived) ?? .defaultValue, "\(key.name)")
        }
        // The shipped file says what the defaults say.
        let shipped = try loaded([:], defaultFile: Self.defaultFile)
        #expect(shipped.configuration == result.configuration)
        #expect(shipped.sources["port"] == .file(Self.defaultFile))
    }

    /// Each value as `check-config` shows it, and its source; `FILE` stands for the file's path.
    @Test(arguments: [
        ([:], nil, "origins", "http://localhost:8080 (default, from rpID and port)"),
        (["LATCHKEY_PORT": "18080"], nil, "origins", "http://localhost:18080 (default, from rpID and port)"),
        (["LATCHKEY_RP_ID": "example.com"], nil, "origins", "https://example.com (default, from rpID and port)"),
        (["LATCHKEY_RP_ID": "example.com"], #"{"origins": ["https://www.example.com"]}"#, "origins", "https://www.example.com (file FILE)"),
        (["LATCHKEY_ORIGINS": "https://localhost, http://a.localhost:8080"], nil, "origins", "https://localhost,http://a.localhost:8080 (LATCHKEY_ORIGINS)"),
        (["LATCHKEY_RP_ID": "example.com"], nil, "tokenIssuer", "https://example.com (default, the first origin)"),
        (["LATCHKEY_RP_ID": "example.com"], nil, "tokenAudience", "example.com (default, from rpID)"),
        (["LATCHKEY_TOKEN_ISSUER": "https://login.example.com"], nil, "tokenIssuer", "https://login.example.com (LATCHKEY_TOKEN_ISSUER)"),
        (["LATCHKEY_TOKEN_AUDIENCE": "api.example.com,billing.example.com"], nil, "tokenAudience", "api.example.com,billing.example.com (LATCHKEY_TOKEN_AUDIENCE)"),
        // The environment over the file over the defaults.
        (["LATCHKEY_RP_NAME": "From environment"], #"{"rpName": "From file", "port": 9000}"#, "rpName", "From environment (LATCHKEY_RP_NAME)"),
        (["LATCHKEY_RP_NAME": "From environment"], #"{"rpName": "From file", "port": 9000}"#, "port", "9000 (file FILE)"),
        ([:], #"{"port": 9000}"#, "host", "127.0.0.1 (default)"),
        (["LATCHKEY_TOP_ORIGINS": ""], #"{"topOrigins": ["https://a.example"]}"#, "topOrigins", " (LATCHKEY_TOP_ORIGINS)"),
        (["LATCHKEY_PORT": "7000"], #"{"port": 70000}"#, "port", "7000 (LATCHKEY_PORT)"),
        // Variables: whole numbers without blanks, lists comma-separated without empty items, strings as they are.
        (["LATCHKEY_PORT": " 9443 "], nil, "port", "9443 (LATCHKEY_PORT)"),
        (["LATCHKEY_CHALLENGE_TIMEOUT": "60"], nil, "challengeTimeout", "60 (LATCHKEY_CHALLENGE_TIMEOUT)"),
        (["LATCHKEY_TOP_ORIGINS": "https://a.example, https://b.example ,,https://c.example"], nil, "topOrigins",
         "https://a.example,https://b.example,https://c.example (LATCHKEY_TOP_ORIGINS)"),
        (["LATCHKEY_APPLE_APP_IDS": "ABCDE12345.com.example.app"], nil, "appleAppIDs", "ABCDE12345.com.example.app (LATCHKEY_APPLE_APP_IDS)"),
        (["LATCHKEY_APPLE_APP_IDS": ""], nil, "appleAppIDs", " (LATCHKEY_APPLE_APP_IDS)"),
        (["LATCHKEY_RP_NAME": " Example, Inc. "], nil, "rpName", " Example, Inc.  (LATCHKEY_RP_NAME)"),
        (["LATCHKEY_HOST": "0.0.0.0"], nil, "host", "0.0.0.0 (LATCHKEY_HOST)"),
        (["LATCHKEY_HOST": "::"], nil, "host", ":: (LATCHKEY_HOST)"),
        (["LATCHKEY_HOST": "localhost"], nil, "host", "localhost (LATCHKEY_HOST)"),
        (["LATCHKEY_LOG_LEVEL": "debug"], nil, "logLevel", "debug (LATCHKEY_LOG_LEVEL)"),
        (["LATCHKEY_ATTESTATION_POLICY": "self-or-trusted"], nil, "attestationPolicy", "self-or-trusted (LATCHKEY_ATTESTATION_POLICY)"),
        (["LATCHKEY_DATABASE": "/tmp/x.sqlite"], nil, "database", "/tmp/x.sqlite (LATCHKEY_DATABASE)"),
        // The file: each JSON type, `_` keys as comments.
        ([:], #"{"port": 9000.0, "_port": "not a number", "_notes": {"list": [1, "two", null]}}"#, "port", "9000 (file FILE)"),
        ([:], #"{"allowSHA1": true}"#, "allowSHA1", "true (file FILE)"),
        ([:], #"{"deniedAAGUIDs": []}"#, "deniedAAGUIDs", " (file FILE)"),
        ([:], #"{"attestationPolicy": "trusted-only"}"#, "attestationPolicy", "trusted-only (file FILE)"),
        ([:], #"{"appleAppIDs": ["ABCDE12345.com.example.app"]}"#, "appleAppIDs", "ABCDE12345.com.example.app (file FILE)"),
        // Webhooks over http only when allowed.
        (["LATCHKEY_WEBHOOK_URLS": "http://127.0.0.1:9000/hooks", "LATCHKEY_WEBHOOK_SECRET": "whsec_" + Data(repeating: 7, count: 32).base64EncodedString(),
          "LATCHKEY_WEBHOOK_ALLOW_HTTP": "on"], nil, "webhookURLs", "http://127.0.0.1:9000/hooks (LATCHKEY_WEBHOOK_URLS)"),
    ] as [([String: String], String?, String, String)])
    func valuesAndTheirSources(environment: [String: String], file json: String?, key: String, shown: String) throws {
        let environment = try self.environment(environment, file: json)
        let result = try ConfigurationLoader.load(environment: environment, defaultFile: Self.noFile)
        let source = "\(result.sources[key] ?? .defaultValue)".replacingOccurrences(of: environment["LATCHKEY_CONFIG"] ?? "FILE", with: "FILE")
        #expect("\(result.configuration.displayValue(of: key)) (\(source))" == shown)
    }

    @Test(arguments: [
        ("true", true), ("TRUE", true), ("1", true), ("yes", true), ("Yes", true), ("on", true), ("ON", true),
        ("false", false), ("False", false), ("0", false), ("no", false), ("NO", false), ("off", false), ("Off", false),
    ])
    func booleansFromTheEnvironment(text: String, value: Bool) throws {
        let result = try loaded(["LATCHKEY_CONFORMANCE_MODE": text, "LATCHKEY_ALLOW_SHA1": text])
        #expect(result.configuration.conformanceMode == value && result.configuration.allowSHA1 == value)
        #expect(result.sources["allowSHA1"] == .environment("LATCHKEY_ALLOW_SHA1"))
    }

    /// swift-configuration finds each key under the variable the documentation and messages give.
    @Test func everyDeclaredKeyIsReadFromItsVariable() throws {
        let defaults = LatchkeyConfiguration()
        var environment: [String: String] = [:]
        for key in LatchkeyConfiguration.keys { environment[key.environmentName] = key.displayValue(in: defaults) }
        let events = Events()
        let result = try ConfigurationLoader.load(environment: environment, defaultFile: Self.defaultFile, accessReporter: events)
        let answers = events.events.withLock { events in
            Dictionary(events.map { ($0.metadata.key.components.joined(separator: "."), $0.providerResults.first) }) { first, _ in first }
        }
        for key in LatchkeyConfiguration.keys {
            #expect(result.sources[key.name] == .environment(key.environmentName), "\(key.name)")
            let lookup = try? answers[key.name]??.result.get()
            #expect(lookup?.encodedKey == key.environmentName && lookup?.value != nil, "\(key.name): \(String(describing: lookup))")
        }
        #expect(result.configuration == defaults.resolvingPaths(against: result.home))
    }

    @Test(arguments: [
        ("rpID", "LATCHKEY_RP_ID"), ("appleAppIDs", "LATCHKEY_APPLE_APP_IDS"), ("challengeTimeout", "LATCHKEY_CHALLENGE_TIMEOUT"),
        ("allowedAAGUIDs", "LATCHKEY_ALLOWED_AAGUIDS"), ("metadataBLOB", "LATCHKEY_METADATA_BLOB"),
    ])
    func environmentNamesFollowTheKeys(key: String, variable: String) {
        #expect(LatchkeyConfiguration.environmentName(of: key) == variable)
    }

    @Test func eachKeyIsDeclaredOnce() {
        let names = LatchkeyConfiguration.keys.map(\.name)
        #expect(Set(names).count == names.count && Set(LatchkeyConfiguration.keys.map(\.environmentName)).count == names.count)
        #expect(!names.contains { $0.hasPrefix("_") }, "keys starting with _ are comments")
    }

    // MARK: - Refusals

    /// Every refused value names its key, where it came from and what is wrong; `FILE` stands for the file's path.
    @Test(arguments: [
        // Types, from the environment.
        (["LATCHKEY_PORT": "notaport"], nil, #"port (LATCHKEY_PORT): "notaport" is not a whole number"#),
        (["LATCHKEY_CHALLENGE_TIMEOUT": "1.5"], nil, #"challengeTimeout (LATCHKEY_CHALLENGE_TIMEOUT): "1.5" is not a whole number"#),
        (["LATCHKEY_CONFORMANCE_MODE": "maybe"], nil, #"conformanceMode (LATCHKEY_CONFORMANCE_MODE): "maybe" is not true or false (nor 1/0, yes/no, on/off)"#),
        (["LATCHKEY_ALLOW_SHA1": "enabled"], nil, #"allowSHA1 (LATCHKEY_ALLOW_SHA1): "enabled" is not true or false (nor 1/0, yes/no, on/off)"#),
        (["LATCHKEY_ATTESTATION_POLICY": "trust-me"], nil, #"attestationPolicy (LATCHKEY_ATTESTATION_POLICY): "trust-me" is not one of none, self-or-trusted, trusted-only"#),
        (["LATCHKEY_LOG_LEVEL": "loud"], nil, #"logLevel (LATCHKEY_LOG_LEVEL): "loud" is not one of trace, debug, info, notice, warning, error, critical"#),
        // Types, from the file, which also must be JSON, an object, and know its keys.
        ([:], #"{"port": "9000"}"#, "port (file FILE): must be a whole number"),
        ([:], #"{"port": 9000.5}"#, "port (file FILE): must be a whole number"),
        ([:], #"{"port": true}"#, "port (file FILE): must be a whole number"),
        ([:], #"{"port": null}"#, "port (file FILE): must be a whole number"),
        ([:], #"{"port": {"number": 9000}}"#, "port (file FILE): must be a whole number"),
        ([:], #"{"conformanceMode": 1}"#, "conformanceMode (file FILE): must be true or false"),
        ([:], #"{"conformanceMode": "yes"}"#, "conformanceMode (file FILE): must be true or false"),
        ([:], #"{"rpName": 5}"#, "rpName (file FILE): must be a string"),
        ([:], #"{"origins": "https://example.com"}"#, "origins (file FILE): must be an array of strings"),
        ([:], #"{"origins": ["https://example.com", 1]}"#, "origins (file FILE): must be an array of strings"),
        ([:], #"{"attestationPolicy": "trust-me"}"#, #"attestationPolicy (file FILE): "trust-me" is not one of none, self-or-trusted, trusted-only"#),
        ([:], #"{"port": 70000}"#, "port (file FILE): 70000 is not a port number (1-65535)"),
        ([:], #"{"port": 9000"#, "FILE: not valid JSON"),
        ([:], "{\n  \"port\": 9000,\n  \"rpID\": example.com\n}", "FILE: not valid JSON (line 3, column 11: invalid value)"),
        ([:], #"[{"port": 9000}]"#, "FILE: the configuration file must hold one JSON object"),
        ([:], #"{"registration": "open", "registration": "tickets"}"#, #"FILE: "registration" is given twice in one object; keep one"#),
        ([:], #"{"port": 9000, "prot": 9000}"#, #"FILE: unknown configuration key "prot"; did you mean "port"?"#),
        ([:], #"{"rpId": "example.com"}"#, #"FILE: unknown configuration key "rpId"; did you mean "rpID"?"#),
        ([:], #"{"RPID": "example.com"}"#, #"FILE: unknown configuration key "RPID"; did you mean "rpID"?"#),
        (["LATCHKEY_CONFIG": "/nonexistent/latchkey.json"], nil, "LATCHKEY_CONFIG: configuration file /nonexistent/latchkey.json does not exist"),
        // Values.
        (["LATCHKEY_HOST": ""], nil, "host (LATCHKEY_HOST): must not be empty"),
        (["LATCHKEY_PORT": "0"], nil, "port (LATCHKEY_PORT): 0 is not a port number (1-65535)"),
        (["LATCHKEY_PORT": "65536"], nil, "port (LATCHKEY_PORT): 65536 is not a port number (1-65535)"),
        // The RP ID: the core's rule (RelyingPartyIDTests), wrapped.
        (["LATCHKEY_RP_ID": "Example.com"], nil, #"rpID (LATCHKEY_RP_ID): "Example.com" is not a valid RP ID: it has upper-case letters (RP IDs are lower case)"#),
        (["LATCHKEY_RP_NAME": ""], nil, "rpName (LATCHKEY_RP_NAME): must not be empty"),
        (["LATCHKEY_DATABASE": ""], nil, "database (LATCHKEY_DATABASE): must not be empty"),
        (["LATCHKEY_CHALLENGE_TIMEOUT": "3601"], nil, "challengeTimeout (LATCHKEY_CHALLENGE_TIMEOUT): 3601 is not between 1 and 3600 seconds"),
        (["LATCHKEY_SESSION_TIMEOUT": "59"], nil, "sessionTimeout (LATCHKEY_SESSION_TIMEOUT): 59 is not between 60 seconds and one year"),
        (["LATCHKEY_REAUTHENTICATE_AFTER": "86401"], nil, "reauthenticateAfter (LATCHKEY_REAUTHENTICATE_AFTER): 86401 is not between 0 and 86400 seconds"),
        (["LATCHKEY_ALLOWED_AAGUIDS": "ee882879-721c"], nil, #"allowedAAGUIDs (LATCHKEY_ALLOWED_AAGUIDS): "ee882879-721c" is not an AAGUID (32 hexadecimal digits, dashes optional)"#),
        (["LATCHKEY_DENIED_AAGUIDS": "not-an-aaguid"], nil, #"deniedAAGUIDs (LATCHKEY_DENIED_AAGUIDS): "not-an-aaguid" is not an AAGUID (32 hexadecimal digits, dashes optional)"#),
        (["LATCHKEY_METRICS_ADDRESS": "localhost"], nil, #"metricsAddress (LATCHKEY_METRICS_ADDRESS): "localhost" is not HOST:PORT"#),
        (["LATCHKEY_TRUSTED_PROXIES": "10.0.0.1,proxy"], nil, #"trustedProxies (LATCHKEY_TRUSTED_PROXIES): "proxy" is not an IP address"#),
        (["LATCHKEY_REGISTRATION": "tickets", "LATCHKEY_CONFORMANCE_MODE": "1"], nil, #"registration (LATCHKEY_REGISTRATION): "tickets" cannot be used with conformanceMode, whose tools register any username"#),
        (["LATCHKEY_APP_ATTEST": "optional"], nil, "appAttest (LATCHKEY_APP_ATTEST): App Attest verifies keys of the apps in appleAppIDs, and there is none"),
        (["LATCHKEY_TOKEN_AUDIENCE": ","], nil, "tokenAudience (LATCHKEY_TOKEN_AUDIENCE): must name at least one audience"),
        // Origins: exact, https, the RP ID a registrable suffix of the host; Android hashes of 32 bytes.
        (["LATCHKEY_ORIGINS": ","], nil, "origins (LATCHKEY_ORIGINS): at least one origin is required"),
        (["LATCHKEY_ORIGINS": "https://localhost/path"], nil, #"origins (LATCHKEY_ORIGINS): "https://localhost/path" is not an origin like https://example.com[:port]"#),
        (["LATCHKEY_ORIGINS": "https://evil.example"], nil, #"origins (LATCHKEY_ORIGINS): the host of "https://evil.example" is not localhost or a subdomain of it, so passkeys for RP ID localhost cannot be used there"#),
        (["LATCHKEY_RP_ID": "example.com", "LATCHKEY_ORIGINS": "http://example.com"], nil, #"origins (LATCHKEY_ORIGINS): "http://example.com" must use https (plain http is only allowed for localhost)"#),
        (["LATCHKEY_ORIGINS": "android:apk-key-hash:AAAA"], nil, #"origins (LATCHKEY_ORIGINS): "android:apk-key-hash:AAAA" is not android:apk-key-hash: and a SHA-256 fingerprint (32 bytes) in base64url without padding"#),
        (["LATCHKEY_ORIGINS": "http://LOCALHOST:8080"], nil, #"origins (LATCHKEY_ORIGINS): "http://LOCALHOST:8080" would never match: browsers send this origin as "http://localhost:8080""#),
        (["LATCHKEY_RP_ID": "example.com", "LATCHKEY_ORIGINS": "https://example.com:443"], nil, #"origins (LATCHKEY_ORIGINS): "https://example.com:443" would never match: browsers send this origin as "https://example.com""#),
        (["LATCHKEY_RP_ID": "example.com", "LATCHKEY_ORIGINS": "https://notexample.com"], nil, #"origins (LATCHKEY_ORIGINS): the host of "https://notexample.com" is not example.com or a subdomain of it, so passkeys for RP ID example.com cannot be used there"#),
        (["LATCHKEY_RELATED_ORIGINS": "http://example.co.uk"], nil, #"relatedOrigins (LATCHKEY_RELATED_ORIGINS): "http://example.co.uk" must use https (plain http is only allowed for localhost)"#),
        (["LATCHKEY_RELATED_ORIGINS": "https://example.co.uk/login"], nil, #"relatedOrigins (LATCHKEY_RELATED_ORIGINS): "https://example.co.uk/login" is not an origin like https://example.com[:port]"#),
        (["LATCHKEY_CORS_ORIGINS": "https://shop.example"], nil, #"corsOrigins (LATCHKEY_CORS_ORIGINS): "https://shop.example" is not one of origins or relatedOrigins"#),
        (["LATCHKEY_RELATED_ORIGINS": "https://shop.example", "LATCHKEY_CORS_ORIGINS": "https://shop.example/"], nil, #"corsOrigins (LATCHKEY_CORS_ORIGINS): "https://shop.example/" is not an origin like https://example.com[:port]"#),
        // Apple and Android apps: the core's rules (AppleAppIDTests, AndroidAppTests), wrapped.
        (["LATCHKEY_APPLE_APP_IDS": "abcde12345.com.example.app"], nil, #"appleAppIDs (LATCHKEY_APPLE_APP_IDS): "abcde12345.com.example.app": the team ID "abcde12345" is not 10 upper-case letters or digits"#),
        (["LATCHKEY_APPLE_APP_LINKS": "ABCDE12345"], nil, #"appleAppLinks (LATCHKEY_APPLE_APP_LINKS): "ABCDE12345" is not TEAMID.bundle.id"#),
        (["LATCHKEY_ANDROID_APPS": "com.example.app"], nil, #"androidApps (LATCHKEY_ANDROID_APPS): "com.example.app" is not PACKAGE@SHA256_FINGERPRINT"#),
        // Passkey endpoints and webhooks: absolute https URLs.
        (["LATCHKEY_PASSKEY_ENROLL_URL": "/account/passkeys"], nil, #"passkeyEnrollURL (LATCHKEY_PASSKEY_ENROLL_URL): "/account/passkeys" is not an absolute URL like https://example.com/account/passkeys"#),
        (["LATCHKEY_PASSKEY_MANAGE_URL": "http://example.com/account"], nil, #"passkeyManageURL (LATCHKEY_PASSKEY_MANAGE_URL): "http://example.com/account" must use https (plain http is only allowed for localhost)"#),
        (["LATCHKEY_PASSKEY_MANAGE_URL": "ftp://example.com/account"], nil, #"passkeyManageURL (LATCHKEY_PASSKEY_MANAGE_URL): "ftp://example.com/account" is not an absolute URL like https://example.com/account/passkeys"#),
        (["LATCHKEY_WEBHOOK_URLS": "https://hooks.example/latchkey"], nil, "webhookSecret (default): is required when webhookURLs are set"),
        (["LATCHKEY_WEBHOOK_URLS": "http://u:hunter2@hooks.example/latchkey", "LATCHKEY_WEBHOOK_SECRET": "whsec_" + String(repeating: "A", count: 44)], nil,
         #"webhookURLs (LATCHKEY_WEBHOOK_URLS): "http://u:<redacted>@hooks.example/latchkey" must use https (http only with webhookAllowHTTP, LATCHKEY_WEBHOOK_ALLOW_HTTP=true, for tests and loopback)"#),
        // A second listener on the main one's address, or the admin API on the metrics listener's: serve could never start.
        (["LATCHKEY_ADMIN_ADDRESS": "127.0.0.1:8080"], nil, #"adminAddress (LATCHKEY_ADMIN_ADDRESS): "127.0.0.1:8080" takes port 8080, which is the main listener's (127.0.0.1:8080); give this listener a port of its own"#),
        (["LATCHKEY_METRICS_ADDRESS": "0.0.0.0:8080"], nil, #"metricsAddress (LATCHKEY_METRICS_ADDRESS): "0.0.0.0:8080" takes port 8080, which is the main listener's (127.0.0.1:8080); give this listener a port of its own"#),
        (["LATCHKEY_METRICS_ADDRESS": "localhost:9464", "LATCHKEY_ADMIN_ADDRESS": "127.0.0.1:9464"], nil, #"adminAddress (LATCHKEY_ADMIN_ADDRESS): "127.0.0.1:9464" takes port 9464, which is metricsAddress's (localhost:9464); give this listener a port of its own"#),
        (["LATCHKEY_WEBHOOK_URLS": "https://u:hunter2@hooks.example/a,https://hooks.example/b,https://u:hunter3@hooks.example/a",
          "LATCHKEY_WEBHOOK_SECRET": "whsec_" + String(repeating: "A", count: 44)], nil,
         #"webhookURLs (LATCHKEY_WEBHOOK_URLS): "https://u:<redacted>@hooks.example/a" is listed twice (passwords aside)"#),
        (["LATCHKEY_WEBHOOK_URLS": "https://hooks.example/latchkey", "LATCHKEY_WEBHOOK_SECRET": "hunter2hunter2"], nil, "webhookSecret (LATCHKEY_WEBHOOK_SECRET): must start with whsec_ (then the base64 of 24 to 64 random bytes)"),
        (["LATCHKEY_WEBHOOK_URLS": "https://hooks.example/latchkey", "LATCHKEY_WEBHOOK_SECRET": "whsec_AAAA"], nil, "webhookSecret (LATCHKEY_WEBHOOK_SECRET): must hold 24 to 64 bytes after whsec_ (it holds 3)"),
        (["LATCHKEY_WEBHOOK_PREVIOUS_SECRET": "whsec_" + String(repeating: "A", count: 44)], nil, "webhookPreviousSecret (LATCHKEY_WEBHOOK_PREVIOUS_SECRET): is only used with a webhookSecret"),
        (["LATCHKEY_WEBHOOK_URLS": "https://hooks.example/latchkey", "LATCHKEY_WEBHOOK_SECRET": "whsec_" + String(repeating: "A", count: 44),
          "LATCHKEY_WEBHOOK_PREVIOUS_SECRET": "whsec_" + String(repeating: "A", count: 44)], nil, "webhookPreviousSecret (LATCHKEY_WEBHOOK_PREVIOUS_SECRET): is webhookSecret itself; it is the secret rotated out"),
        (["LATCHKEY_WEBHOOK_URLS": "https://hooks.example/latchkey", "LATCHKEY_WEBHOOK_SECRET": "whsec_" + String(repeating: "A", count: 44),
          "LATCHKEY_WEBHOOK_PREVIOUS_SECRET": "hunter2"], nil, "webhookPreviousSecret (LATCHKEY_WEBHOOK_PREVIOUS_SECRET): must start with whsec_ (then the base64 of 24 to 64 random bytes)"),
        // A secret is not in the message, whatever else is wrong.
        (["LATCHKEY_DATABASE": "postgres://u:hunter2@h/d", "LATCHKEY_PORT": "0"], nil, "port (LATCHKEY_PORT): 0 is not a port number (1-65535)"),
    ] as [([String: String], String?, String)])
    func refusedValuesAreNamed(environment: [String: String], file json: String?, message: String) throws {
        #expect(try refusal(environment, file: json) == message)
    }

    @Test func otherRefusalsSayWhatIsWrong() throws {
        #expect(try refusal(["LATCHKEY_HOST": "no-such-host.invalid"]).hasPrefix(#"host (LATCHKEY_HOST): "no-such-host.invalid" does not resolve ("#))
        #expect(try refusal(["LATCHKEY_ADMIN_ADDRESS": "no-such-host.invalid:9090"]).hasPrefix(
            #"adminAddress (LATCHKEY_ADMIN_ADDRESS): "no-such-host.invalid" does not resolve ("#))
        #expect(try refusal(["LATCHKEY_METRICS_ADDRESS": "no-such-host.invalid:9464"]).hasPrefix(
            #"metricsAddress (LATCHKEY_METRICS_ADDRESS): "no-such-host.invalid" does not resolve ("#))
        let keys = LatchkeyConfiguration.keys.map(\.name).joined(separator: ", ")
        #expect(try refusal([:], file: #"{"colour": "blue"}"#) == #"FILE: unknown configuration key "colour"; known keys: \#(keys)"#)
    }

    @Test func everyProblemIsListedInTheOrderOfTheKeys() throws {
        let lines = try refusal([
            "LATCHKEY_PORT": "0", "LATCHKEY_APPLE_APP_IDS": "abcde12345.com.example.app,ABCDE12345.com.example.app,team.app",
            "LATCHKEY_ANDROID_APPS": "com.example.app@00:11", "LATCHKEY_RELATED_ORIGINS": "http://example.co.uk",
            "LATCHKEY_PASSKEY_ENROLL_URL": "account/passkeys", "LATCHKEY_CONFORMANCE_MODE": "maybe",
        ]).split(separator: "\n")
        // Good items are not reported.
        #expect(lines.map { $0.prefix { $0 != ":" } } == [
            "port (LATCHKEY_PORT)", "appleAppIDs (LATCHKEY_APPLE_APP_IDS)", "appleAppIDs (LATCHKEY_APPLE_APP_IDS)", "androidApps (LATCHKEY_ANDROID_APPS)",
            "relatedOrigins (LATCHKEY_RELATED_ORIGINS)", "passkeyEnrollURL (LATCHKEY_PASSKEY_ENROLL_URL)", "conformanceMode (LATCHKEY_CONFORMANCE_MODE)",
        ])
        #expect(lines[1].contains("\"abcde12345.com.example.app\"") && lines[2].contains("\"team.app\""))
        // The file's too; the origins are not also blamed for the RP ID that is wrong.
        let file = #"{"prot": 1, "port": "80", "relatedOrigins": ["http://example.co.uk"], "rpID": "Example.com", "origins": ["https://example.org"]}"#
        let fileLines = try refusal([:], file: file).split(separator: "\n")
        #expect(fileLines.map { $0.prefix { $0 != ":" } } == ["FILE", "port (file FILE)", "rpID (file FILE)", "relatedOrigins (file FILE)"])
    }

    /// Android apps, AAGUIDs and the second listeners' addresses are parsed once, when the configuration is
    /// read: the configuration holds the values, and a list refuses each bad item on a line of its own.
    @Test func typedValuesAreParsedOnceAndEachBadItemIsNamed() throws {
        let fingerprint = Array(repeating: "ab", count: 32).joined(separator: ":")
        let configuration = try loaded([
            "LATCHKEY_ANDROID_APPS": "com.example.app@\(fingerprint)", "LATCHKEY_DENIED_AAGUIDS": "EE882879721C491397753DFCCE97072A",
            "LATCHKEY_METRICS_ADDRESS": "[::1]:9464",
        ]).configuration
        #expect(configuration.androidApps.map(\.packageName) == ["com.example.app"])
        #expect(configuration.androidApps.first?.certificateFingerprint == Array(repeating: 0xAB, count: 32))
        #expect(configuration.deniedAAGUIDs.map(\.description) == ["ee882879-721c-4913-9775-3dfcce97072a"])
        #expect(configuration.metricsAddress?.host == "::1" && configuration.metricsAddress?.port == 9464)
        #expect(configuration.adminAddress == nil, "empty: no listener")
        #expect(configuration.displayValue(of: "deniedAAGUIDs") == "ee882879-721c-4913-9775-3dfcce97072a", "shown as parsed")
        let lines = try refusal(["LATCHKEY_ALLOWED_AAGUIDS": "ee882879-721c,ee882879721c491397753dfcce97072a,0123"]).split(separator: "\n")
        #expect(lines == [
            #"allowedAAGUIDs (LATCHKEY_ALLOWED_AAGUIDS): "ee882879-721c" is not an AAGUID (32 hexadecimal digits, dashes optional)"#,
            #"allowedAAGUIDs (LATCHKEY_ALLOWED_AAGUIDS): "0123" is not an AAGUID (32 hexadecimal digits, dashes optional)"#,
        ])
    }

    // MARK: - Secrets

    @Test(arguments: [
        ("postgres://latchkey:hunter2@db.example/latchkey", "postgres://latchkey:<redacted>@db.example/latchkey"),
        ("postgres://latchkey:hunter2@db.example:5432/latchkey?sslmode=require", "postgres://latchkey:<redacted>@db.example:5432/latchkey?sslmode=require"),
        ("postgres://latchkey:hun@ter/2@db.example/latchkey", "postgres://latchkey:<redacted>@db.example/latchkey"),
        ("postgres://latchkey:hunter?2#@db.example/latchkey", "postgres://latchkey:<redacted>@db.example/latchkey"),
        ("postgres://db.example/latchkey?user=latchkey&password=hunter2", "postgres://db.example/latchkey?user=latchkey&password=<redacted>"),
        ("postgres://db.example/latchkey?sslpassword=hunter2&sslmode=require", "postgres://db.example/latchkey?sslpassword=<redacted>&sslmode=require"),
        ("postgres://latchkey@db.example/latchkey", "postgres://latchkey@db.example/latchkey"),
        ("postgres://db.example:5432/latchkey", "postgres://db.example:5432/latchkey"),
        ("data/latchkey.sqlite", "data/latchkey.sqlite"),
        ("/var/lib/latchkey:old/db.sqlite", "/var/lib/latchkey:old/db.sqlite"),
    ])
    func urlPasswordsAreRedacted(value: String, shown: String) {
        #expect(ConfigurationRedaction.redactingURLPassword(value) == shown)
    }

    /// The server gets each secret; `check-config` shows it redacted, from the environment or the file.
    @Test(arguments: [
        ("database", "postgres://latchkey:hunter2@db.example/latchkey", "postgres://latchkey:<redacted>@db.example/latchkey"),
        ("metricsToken", "tok-hunter2", "<redacted>"),
        ("webhookSecret", "whsec_" + String(repeating: "hunter2h", count: 4), "<redacted>"),
    ])
    func secretsAreNeverShown(key: String, secret: String, shown: String) throws {
        let secretKey = try #require(LatchkeyConfiguration.key(named: key))
        for result in [try loaded([secretKey.environmentName: secret]), try loaded([:], file: #"{"\#(key)": "\#(secret)"}"#)] {
            #expect(secretKey.get(result.configuration) == .string(secret), "the server gets the secret")
            #expect(result.configuration.displayValue(of: key) == shown)
            let line = try #require(result.summary.first { $0.hasPrefix(key + " ") })
            #expect(line.contains(shown) && !result.summary.joined().contains("hunter2"), "\(line)")
        }
        #expect(secretKey.isSecret && secretKey.redact(secret) == shown, "what a message quotes is redacted too")
    }

    /// Kept by the test: every access event swift-configuration reports.
    final class Events: AccessReporter {
        let events = Mutex<[AccessEvent]>([])
        func report(_ event: AccessEvent) { events.withLock { $0.append(event) } }
    }

    @Test func secretKeysAreSecretInSwiftConfiguration() throws {
        #expect(LatchkeyConfiguration.keys.filter(\.isSecret).map(\.name) == ["database", "metricsToken", "webhookURLs", "webhookSecret", "webhookPreviousSecret"])
        let events = Events()
        let file = try temporaryFile(#"{"database": "postgres://u:hunter2@h/d"}"#)
        for environment in [["LATCHKEY_DATABASE": "postgres://u:hunter2@h/d"], ["LATCHKEY_CONFIG": file], [:]] {
            _ = try ConfigurationLoader.load(environment: environment, defaultFile: Self.noFile, accessReporter: events)
        }
        let database = events.events.withLock { $0.filter { $0.metadata.key.components == ["database"] } }
        #expect(database.count == 3)
        for event in database {
            #expect((try? event.result.get())??.isSecret == true && !"\(event)".contains("hunter2"))
        }
        let port = events.events.withLock { $0.first { $0.metadata.key.components == ["port"] } }
        #expect((try? port?.result.get())??.isSecret == false)
    }

    // MARK: - What is derived from the keys

    @Test func summaryHasOneLinePerKeyWithValueAndSource() throws {
        let summary = try loaded(["LATCHKEY_PORT": "9000"]).summary
        #expect(summary.count == LatchkeyConfiguration.keys.count)
        #expect(summary.first { $0.hasPrefix("port ") }?.split(separator: " ") == ["port", "9000", "(LATCHKEY_PORT)"])
        #expect(summary.first { $0.hasPrefix("host ") }?.split(separator: " ") == ["host", "127.0.0.1", "(default)"])
        #expect(summary.first { $0.hasPrefix("appleAppIDs ") }?.split(separator: " ") == ["appleAppIDs", "(none)", "(default)"])
    }

    @Test func theDocumentationsTableIsTheDeclaredKeys() throws {
        let documentation = try String(contentsOf: Self.repository.appendingPathComponent("docs/CONFIGURATION.md"), encoding: .utf8)
        let table = LatchkeyConfiguration.markdownTable
        #expect(documentation.contains("\n" + table + "\n"), "docs/CONFIGURATION.md's configuration table should be:\n\(table)")
    }
}
