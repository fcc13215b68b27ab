import Configuration
import Foundation
import Synchronization
import WebAuthn
import Testing
@testable import LatchkeyConfiguration

@Suite("Configuration")
struct ConfigurationTests {
    /// The repository's folder.
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The repository's own default file.
    static let defaultFile = repository.appendingPathComponent("Config/latchkey.json").path
    /// A default file that does not exist: only the environment and the defaults count.
    static let noFile = "/nonexistent/latchkey.json"

    func load(_ environment: [String: String], defaultFile: String = Self.defaultFile) throws -> LatchkeyConfiguration {
        try ConfigurationLoader.load(environment: environment, defaultFile: defaultFile).configuration
    }

    func loaded(_ environment: [String: String], defaultFile: String = Self.noFile) throws -> LoadedConfiguration {
        try ConfigurationLoader.load(environment: environment, defaultFile: defaultFile)
    }

    /// The error of a configuration that must be refused.
    func error(_ environment: [String: String], defaultFile: String = Self.noFile, sourceLocation: SourceLocation = #_sourceLocation) -> String {
        let error = #expect(throws: ConfigurationError.self, sourceLocation: sourceLocation) {
            try ConfigurationLoader.load(environment: environment, defaultFile: defaultFile)
        }
        return error?.message ?? ""
    }

    func temporaryFile(_ contents: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-\(UUID().uuidString).json").path
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    // MARK: - Defaults and precedence

    @Test func shippedDefaultsWorkOnLocalhost() throws {
        let configuration = try load([:])
        #expect(configuration.rpID == "localhost")
        #expect(configuration.port == 8080)
        #expect(configuration.origins == ["http://localhost:8080"])
        #expect(configuration.challengeTimeout == 300)
        #expect(configuration.conformanceMode == false)
    }

    @Test func withoutFileOrVariablesEveryKeyHasItsDefault() throws {
        let result = try loaded([:])
        #expect(result.configuration == LatchkeyConfiguration().resolvingPaths(against: result.home))
        let derived = ["origins", "tokenIssuer", "tokenAudience"]
        for key in LatchkeyConfiguration.keys where !derived.contains(key.name) {
            #expect(result.sources[key.name] == .defaultValue, "\(key.name)")
        }
        #expect(result.sources["origins"] == .derived("from rpID and port"))
        #expect(result.sources["tokenIssuer"] == .derived("the first origin"))
        #expect(result.sources["tokenAudience"] == .derived("from rpID"))
    }

    @Test func tokenIssuerAndAudienceFollowTheRelyingParty() throws {
        let configuration = try loaded(["LATCHKEY_RP_ID": "example.com"]).configuration
        #expect(configuration.tokenIssuer == "https://example.com")
        #expect(configuration.tokenAudience == ["example.com"])
        let chosen = try loaded([
            "LATCHKEY_RP_ID": "example.com", "LATCHKEY_TOKEN_ISSUER": "https://login.example.com",
            "LATCHKEY_TOKEN_AUDIENCE": "api.example.com,billing.example.com",
        ]).configuration
        #expect(chosen.tokenIssuer == "https://login.example.com")
        #expect(chosen.tokenAudience == ["api.example.com", "billing.example.com"])
    }

    @Test func theShippedFileSaysWhatTheDefaultsSay() throws {
        #expect(try load([:]) == load([:], defaultFile: Self.noFile))
        let shipped = try loaded([:], defaultFile: Self.defaultFile)
        #expect(shipped.sources["port"] == .file(Self.defaultFile))
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

    /// swift-configuration finds each key under the variable name the README and errors give.
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

    @Test func environmentOverFileOverDefaults() throws {
        let file = try temporaryFile(#"{"port": 9000, "rpName": "From file", "conformanceMode": true, "topOrigins": ["https://a.example"]}"#)
        let result = try loaded(["LATCHKEY_CONFIG": file, "LATCHKEY_RP_NAME": "From environment", "LATCHKEY_TOP_ORIGINS": ""])
        let configuration = result.configuration
        #expect(configuration.port == 9000)
        #expect(configuration.rpName == "From environment")
        #expect(configuration.conformanceMode)
        #expect(configuration.topOrigins == [], "an empty variable empties a list the file set")
        #expect(configuration.host == "127.0.0.1")
        #expect(result.sources["port"] == .file(file))
        #expect(result.sources["rpName"] == .environment("LATCHKEY_RP_NAME"))
        #expect(result.sources["topOrigins"] == .environment("LATCHKEY_TOP_ORIGINS"))
        #expect(result.sources["host"] == .defaultValue)
    }

    @Test func originFollowsThePortWhenNotConfigured() throws {
        #expect(try load(["LATCHKEY_PORT": "18080"]).origins == ["http://localhost:18080"])
        #expect(try load(["LATCHKEY_RP_ID": "example.com"]).origins == ["https://example.com"])
        let file = try temporaryFile(#"{"rpID": "example.com", "origins": ["https://www.example.com"]}"#)
        let result = try loaded(["LATCHKEY_CONFIG": file])
        #expect(result.configuration.origins == ["https://www.example.com"])
        #expect(result.sources["origins"] == .file(file))
    }

    @Test func environmentNamesFollowTheKeys() {
        #expect(LatchkeyConfiguration.environmentName(of: "rpID") == "LATCHKEY_RP_ID")
        #expect(LatchkeyConfiguration.environmentName(of: "appleAppIDs") == "LATCHKEY_APPLE_APP_IDS")
        #expect(LatchkeyConfiguration.environmentName(of: "challengeTimeout") == "LATCHKEY_CHALLENGE_TIMEOUT")
        #expect(LatchkeyConfiguration.environmentName(of: "allowedAAGUIDs") == "LATCHKEY_ALLOWED_AAGUIDS")
        #expect(LatchkeyConfiguration.environmentName(of: "metadataBLOB") == "LATCHKEY_METADATA_BLOB")
    }

    @Test func eachKeyIsDeclaredOnce() {
        let names = LatchkeyConfiguration.keys.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(Set(LatchkeyConfiguration.keys.map(\.environmentName)).count == names.count)
        #expect(!names.contains { $0.hasPrefix("_") }, "keys starting with _ are comments")
    }

    // MARK: - Types, from the environment

    @Test func integersFromTheEnvironment() throws {
        #expect(try load(["LATCHKEY_PORT": " 9443 "]).port == 9443)
        #expect(error(["LATCHKEY_PORT": "notaport"]) == #"port (LATCHKEY_PORT): "notaport" is not a whole number"#)
        #expect(error(["LATCHKEY_CHALLENGE_TIMEOUT": "1.5"]) == #"challengeTimeout (LATCHKEY_CHALLENGE_TIMEOUT): "1.5" is not a whole number"#)
    }

    @Test(arguments: [
        ("true", true), ("TRUE", true), ("1", true), ("yes", true), ("Yes", true), ("on", true), ("ON", true),
        ("false", false), ("False", false), ("0", false), ("no", false), ("NO", false), ("off", false), ("Off", false),
    ])
    func booleansFromTheEnvironment(text: String, value: Bool) throws {
        let result = try loaded(["LATCHKEY_CONFORMANCE_MODE": text, "LATCHKEY_ALLOW_SHA1": text])
        #expect(result.configuration.conformanceMode == value)
        #expect(result.configuration.allowSHA1 == value)
        #expect(result.sources["allowSHA1"] == .environment("LATCHKEY_ALLOW_SHA1"))
    }

    @Test func aWordThatIsNotABooleanIsRefused() {
        #expect(error(["LATCHKEY_CONFORMANCE_MODE": "maybe"]) == #"conformanceMode (LATCHKEY_CONFORMANCE_MODE): "maybe" is not true or false (nor 1/0, yes/no, on/off)"#)
        #expect(error(["LATCHKEY_ALLOW_SHA1": "enabled"]).hasPrefix("allowSHA1 (LATCHKEY_ALLOW_SHA1): \"enabled\""))
    }

    @Test func listsFromTheEnvironmentAreCommaSeparated() throws {
        #expect(try load(["LATCHKEY_TOP_ORIGINS": "https://a.example, https://b.example ,,https://c.example"]).topOrigins
            == ["https://a.example", "https://b.example", "https://c.example"])
        #expect(try load(["LATCHKEY_TOP_ORIGINS": "https://a.example"]).topOrigins == ["https://a.example"])
        #expect(try load(["LATCHKEY_APPLE_APP_IDS": ""]).appleAppIDs == [])
    }

    @Test func stringsFromTheEnvironmentAreTakenAsTheyAre() throws {
        #expect(try load(["LATCHKEY_RP_NAME": " Example, Inc. "]).rpName == " Example, Inc. ")
        #expect(try load(["LATCHKEY_LOG_LEVEL": "debug"]).logLevel == "debug")
        #expect(try load(["LATCHKEY_ATTESTATION_POLICY": "self-or-trusted"]).attestationPolicy == .selfOrTrusted)
        #expect(error(["LATCHKEY_ATTESTATION_POLICY": "trust-me"])
            == #"attestationPolicy (LATCHKEY_ATTESTATION_POLICY): "trust-me" is not one of none, self-or-trusted, trusted-only"#)
        #expect(error(["LATCHKEY_LOG_LEVEL": "loud"])
            == #"logLevel (LATCHKEY_LOG_LEVEL): "loud" is not one of trace, debug, info, notice, warning, error, critical"#)
    }

    @Test func variablesThatAreNotKeysAreIgnoredButWarnedAbout() throws {
        let result = try loaded(["LATCHKEY_BIN": "/x", "LATCHKEY_PROT": "1", "PORT": "1"])
        #expect(result.configuration == LatchkeyConfiguration().resolvingPaths(against: result.home))
        #expect(result.warnings.count == 2, "\(result.warnings)")
    }

    // MARK: - Types, from the file

    @Test func everyTypeFromTheFile() throws {
        let file = try temporaryFile("""
            {"host": "0.0.0.0", "port": 9000.0, "allowSHA1": true, "appleAppIDs": ["ABCDE12345.com.example.app"],
             "deniedAAGUIDs": [], "attestationPolicy": "trusted-only", "logLevel": "error"}
            """)
        let configuration = try load(["LATCHKEY_CONFIG": file])
        #expect(configuration.host == "0.0.0.0")
        #expect(configuration.port == 9000)
        #expect(configuration.allowSHA1)
        #expect(configuration.appleAppIDs == ["ABCDE12345.com.example.app"])
        #expect(configuration.deniedAAGUIDs == [])
        #expect(configuration.attestationPolicy == .trustedOnly)
        #expect(configuration.logLevel == "error")
    }

    @Test(arguments: [
        (#"{"port": "9000"}"#, "port", "must be a whole number"),
        (#"{"port": 9000.5}"#, "port", "must be a whole number"),
        (#"{"port": true}"#, "port", "must be a whole number"),
        (#"{"port": null}"#, "port", "must be a whole number"),
        (#"{"port": {"number": 9000}}"#, "port", "must be a whole number"),
        (#"{"conformanceMode": 1}"#, "conformanceMode", "must be true or false"),
        (#"{"conformanceMode": "yes"}"#, "conformanceMode", "must be true or false"),
        (#"{"rpName": 5}"#, "rpName", "must be a string"),
        (#"{"origins": "https://example.com"}"#, "origins", "must be an array of strings"),
        (#"{"origins": ["https://example.com", 1]}"#, "origins", "must be an array of strings"),
        (#"{"attestationPolicy": "trust-me"}"#, "attestationPolicy", #""trust-me" is not one of none, self-or-trusted, trusted-only"#),
    ])
    func wrongTypesInTheFileNameKeyAndFile(json: String, key: String, problem: String) throws {
        let file = try temporaryFile(json)
        #expect(error(["LATCHKEY_CONFIG": file]) == "\(key) (file \(file)): \(problem)")
    }

    @Test func unknownKeysInTheFileAreErrors() throws {
        let file = try temporaryFile(#"{"port": 9000, "prot": 9000}"#)
        let message = error(["LATCHKEY_CONFIG": file])
        #expect(message.hasPrefix("\(file): unknown configuration key \"prot\"; did you mean \"port\"?"))
        #expect(error(["LATCHKEY_CONFIG": try temporaryFile(#"{"RPID": "example.com"}"#)]).contains("\"RPID\""))
        let near = try temporaryFile(#"{"rpId": "example.com"}"#)
        #expect(error(["LATCHKEY_CONFIG": near]).hasPrefix("\(near): unknown configuration key \"rpId\"; did you mean \"rpID\"?"))
        // Nothing close: the list of keys instead.
        let far = try temporaryFile(#"{"colour": "blue"}"#)
        #expect(error(["LATCHKEY_CONFIG": far]).hasPrefix("\(far): unknown configuration key \"colour\"; known keys: host, port, rpID"))
    }

    @Test func keysStartingWithAnUnderscoreAreComments() throws {
        let file = try temporaryFile(#"{"_comment": "any text", "_port": "not a number", "_notes": {"list": [1, "two", null]}, "port": 9001}"#)
        let result = try loaded(["LATCHKEY_CONFIG": file])
        #expect(result.configuration.port == 9001)
        #expect(result.configuration.rpName == "Latchkey")
    }

    @Test func filesThatCannotBeReadAreNamed() throws {
        #expect(error(["LATCHKEY_CONFIG": try temporaryFile(#"{"port": 9000"#)]).contains(": not valid JSON"))
        let broken = try temporaryFile("{\n  \"port\": 9000,\n  \"rpID\": example.com\n}")
        let message = error(["LATCHKEY_CONFIG": broken])
        #expect(message.hasPrefix("\(broken): not valid JSON (line 3, column 11"), "\(message)")
        #expect(error(["LATCHKEY_CONFIG": try temporaryFile(#"[{"port": 9000}]"#)]).hasSuffix(": the configuration file must hold one JSON object"))
        #expect(error(["LATCHKEY_CONFIG": "/nonexistent/latchkey.json"]) == "LATCHKEY_CONFIG: configuration file /nonexistent/latchkey.json does not exist")
        // A missing default file only means defaults.
        #expect(try loaded([:], defaultFile: "/nonexistent/latchkey.json").configuration.port == 8080)
    }

    // MARK: - Validation

    @Test(arguments: [
        (["LATCHKEY_HOST": ""], #"host (LATCHKEY_HOST): must not be empty"#),
        (["LATCHKEY_PORT": "0"], #"port (LATCHKEY_PORT): 0 is not a port number (1-65535)"#),
        (["LATCHKEY_PORT": "65536"], #"port (LATCHKEY_PORT): 65536 is not a port number (1-65535)"#),
        (["LATCHKEY_RP_ID": "Example.com"], #"rpID (LATCHKEY_RP_ID): "Example.com" is not a valid RP ID: it has upper-case letters (RP IDs are lower case)"#),
        (["LATCHKEY_RP_ID": "example.com:443"], #"rpID (LATCHKEY_RP_ID): "example.com:443" is not a valid RP ID: it is not a bare domain name (no scheme, port or path)"#),
        (["LATCHKEY_RP_ID": ""], #"rpID (LATCHKEY_RP_ID): "" is not a valid RP ID: it is empty"#),
        (["LATCHKEY_RP_NAME": ""], #"rpName (LATCHKEY_RP_NAME): must not be empty"#),
        (["LATCHKEY_ORIGINS": ","], #"origins (LATCHKEY_ORIGINS): at least one origin is required"#),
        (["LATCHKEY_ORIGINS": "https://localhost/path"], #"origins (LATCHKEY_ORIGINS): "https://localhost/path" is not an origin like https://example.com[:port]"#),
        (["LATCHKEY_ORIGINS": "https://evil.example"], #"origins (LATCHKEY_ORIGINS): the host of "https://evil.example" is not localhost or a subdomain of it, so passkeys for RP ID localhost cannot be used there"#),
        (["LATCHKEY_RP_ID": "example.com", "LATCHKEY_ORIGINS": "http://example.com"], #"origins (LATCHKEY_ORIGINS): "http://example.com" must use https (plain http is only allowed for localhost)"#),
        (["LATCHKEY_APPLE_APP_IDS": "com.example.app"], #"appleAppIDs (LATCHKEY_APPLE_APP_IDS): "com.example.app": the team ID "com" is not 10 upper-case letters or digits"#),
        (["LATCHKEY_APPLE_APP_LINKS": "ABCDE1234.com.example.app"], #"appleAppLinks (LATCHKEY_APPLE_APP_LINKS): "ABCDE1234.com.example.app": the team ID "ABCDE1234" is not 10 upper-case letters or digits"#),
        (["LATCHKEY_CHALLENGE_TIMEOUT": "3601"], #"challengeTimeout (LATCHKEY_CHALLENGE_TIMEOUT): 3601 is not between 1 and 3600 seconds"#),
        (["LATCHKEY_SESSION_TIMEOUT": "59"], #"sessionTimeout (LATCHKEY_SESSION_TIMEOUT): 59 is not between 60 seconds and one year"#),
        (["LATCHKEY_DATABASE": ""], #"database (LATCHKEY_DATABASE): must not be empty"#),
        (["LATCHKEY_ALLOWED_AAGUIDS": "ee882879-721c"], #"allowedAAGUIDs (LATCHKEY_ALLOWED_AAGUIDS): "ee882879-721c" is not an AAGUID (32 hexadecimal digits, dashes optional)"#),
        (["LATCHKEY_DENIED_AAGUIDS": "not-an-aaguid"], #"deniedAAGUIDs (LATCHKEY_DENIED_AAGUIDS): "not-an-aaguid" is not an AAGUID (32 hexadecimal digits, dashes optional)"#),
    ])
    func everyValidationNamesKeySourceAndProblem(environment: [String: String], message: String) {
        #expect(error(environment) == message)
    }

    @Test func aBadValueFromTheFileNamesTheFile() throws {
        let file = try temporaryFile(#"{"port": 70000}"#)
        #expect(error(["LATCHKEY_CONFIG": file]) == "port (file \(file)): 70000 is not a port number (1-65535)")
        // The environment variable replaces the file's value before it is checked.
        #expect(try load(["LATCHKEY_CONFIG": file, "LATCHKEY_PORT": "7000"]).port == 7000)
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

    @Test func theDatabasePasswordIsNeverShown() throws {
        let url = "postgres://latchkey:hunter2@db.example/latchkey"
        let result = try loaded(["LATCHKEY_DATABASE": url])
        #expect(result.configuration.database == url, "the server itself gets the password")
        #expect(result.configuration.displayValue(of: "database") == "postgres://latchkey:<redacted>@db.example/latchkey")
        #expect(result.sources["database"] == .environment("LATCHKEY_DATABASE"))
        #expect(!result.summary.joined(separator: "\n").contains("hunter2"))
        #expect(result.summary.contains { $0.hasPrefix("database ") && $0.contains("<redacted>") && $0.hasSuffix("(LATCHKEY_DATABASE)") })

        let file = try temporaryFile(#"{"database": "\#(url)"}"#)
        let fromFile = try loaded(["LATCHKEY_CONFIG": file])
        #expect(fromFile.configuration.database == url)
        #expect(!fromFile.summary.joined(separator: "\n").contains("hunter2"))
    }

    @Test func aSecretIsNotPutInAnErrorMessage() throws {
        let database = try #require(LatchkeyConfiguration.key(named: "database"))
        let problem = database.kind.problem(shown: database.redact("postgres://u:hunter2@h/d"))
        #expect(!problem.contains("hunter2") && problem.contains("<redacted>"))
        // Whatever else is wrong, the error does not carry the database URL.
        let message = error(["LATCHKEY_DATABASE": "postgres://u:hunter2@h/d", "LATCHKEY_PORT": "0"])
        #expect(message.hasPrefix("port (LATCHKEY_PORT)") && !message.contains("hunter2"))
    }

    @Test func aWholeSecretIsNeverShown() {
        let token = ConfigurationKey("rpName", \.rpName, secrecy: .whole, "A secret.")
        var configuration = LatchkeyConfiguration()
        configuration.rpName = "s3cret"
        #expect(token.isSecret)
        #expect(token.displayValue(in: configuration) == "<redacted>")
        #expect(!token.kind.problem(shown: token.redact("s3cret")).contains("s3cret"))
    }

    /// Kept by the test: every access event swift-configuration reports.
    final class Events: AccessReporter {
        let events = Mutex<[AccessEvent]>([])
        func report(_ event: AccessEvent) { events.withLock { $0.append(event) } }
    }

    @Test func theMetricsTokenIsNeverShown() throws {
        let loaded = try ConfigurationLoader.load(environment: ["LATCHKEY_METRICS_TOKEN": "tok-hunter2"], defaultFile: Self.noFile)
        #expect(loaded.configuration.metricsToken == "tok-hunter2")
        #expect(!loaded.summary.joined().contains("hunter2"))
        #expect(loaded.summary.contains { $0.contains("metricsToken") && $0.contains("<redacted>") })
    }

    @Test func theWebhookSecretIsRedactedAndChecked() throws {
        let secret = "whsec_" + Data(repeating: 7, count: 32).base64EncodedString()
        let loaded = try ConfigurationLoader.load(
            environment: ["LATCHKEY_WEBHOOK_URLS": "https://hooks.example/latchkey", "LATCHKEY_WEBHOOK_SECRET": secret],
            defaultFile: Self.noFile)
        #expect(loaded.configuration.webhookSecret == secret && loaded.configuration.webhookURLs == ["https://hooks.example/latchkey"])
        #expect(!loaded.summary.joined().contains(String(secret.dropFirst(6))))
        for (environment, problem) in [
            (["LATCHKEY_WEBHOOK_URLS": "https://hooks.example/latchkey"], "webhookSecret (default): is required when webhookURLs are set"),
            (["LATCHKEY_WEBHOOK_URLS": "http://hooks.example/latchkey", "LATCHKEY_WEBHOOK_SECRET": secret], "must use https"),
            (["LATCHKEY_WEBHOOK_URLS": "https://hooks.example/latchkey", "LATCHKEY_WEBHOOK_SECRET": "hunter2hunter2"], "whsec_"),
        ] {
            let error = #expect(throws: ConfigurationError.self) {
                try ConfigurationLoader.load(environment: environment, defaultFile: Self.noFile)
            }
            #expect(error?.message.contains(problem) == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("hunter2") == false, "the secret is never shown")
        }
        let loopback = try ConfigurationLoader.load(
            environment: [
                "LATCHKEY_WEBHOOK_URLS": "http://127.0.0.1:9000/hooks", "LATCHKEY_WEBHOOK_SECRET": secret, "LATCHKEY_WEBHOOK_ALLOW_HTTP": "true",
            ],
            defaultFile: Self.noFile)
        #expect(loopback.configuration.webhookAllowHTTP)
    }

    @Test func secretKeysAreSecretInSwiftConfiguration() throws {
        #expect(LatchkeyConfiguration.keys.filter(\.isSecret).map(\.name) == ["database", "metricsToken", "webhookURLs", "webhookSecret"])
        let events = Events()
        let file = try temporaryFile(#"{"database": "postgres://u:hunter2@h/d"}"#)
        for environment in [["LATCHKEY_DATABASE": "postgres://u:hunter2@h/d"], ["LATCHKEY_CONFIG": file], [:]] {
            _ = try ConfigurationLoader.load(environment: environment, defaultFile: Self.noFile, accessReporter: events)
        }
        let database = events.events.withLock { $0.filter { $0.metadata.key.components == ["database"] } }
        #expect(database.count == 3)
        for event in database {
            #expect((try? event.result.get())??.isSecret == true)
            #expect(!"\(event)".contains("hunter2"))
        }
        let port = events.events.withLock { $0.first { $0.metadata.key.components == ["port"] } }
        #expect((try? port?.result.get())??.isSecret == false)
    }

    // MARK: - Derived documentation

    @Test func summaryHasOneLinePerKeyWithValueAndSource() throws {
        let summary = try loaded(["LATCHKEY_PORT": "9000"]).summary
        #expect(summary.count == LatchkeyConfiguration.keys.count)
        let port = try #require(summary.first { $0.hasPrefix("port ") })
        #expect(port.split(separator: " ", omittingEmptySubsequences: true) == ["port", "9000", "(LATCHKEY_PORT)"])
        let host = try #require(summary.first { $0.hasPrefix("host ") })
        #expect(host.split(separator: " ", omittingEmptySubsequences: true) == ["host", "127.0.0.1", "(default)"])
        #expect(summary.contains { $0.hasPrefix("appleAppIDs ") && $0.contains("(none)") })
    }

    @Test func theReadmeTableIsTheDeclaredKeys() throws {
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("docs/CONFIGURATION.md"), encoding: .utf8)
        let table = LatchkeyConfiguration.markdownTable
        #expect(readme.contains("\n" + table + "\n"), "docs/CONFIGURATION.md's configuration table should be:\n\(table)")
    }
}

extension ConfigurationTests {
    @Test(arguments: [
        ("example.com.", "ends with a dot"), ("-bad.com", "starts or ends with a hyphen"), ("exa_mple.com", "has \"_\""),
        ("a..b.com", "empty label"), ("com", "single label"), (String(repeating: "a", count: 70) + ".com", "70 bytes long"),
        ("exa mple.com", "has \" \""), ("Example.com", "upper-case"), ("bücher.de", "punycode"), ("example.com:8080", "no scheme, port"),
        (String(repeating: "abcdefghi.", count: 26) + "com", "at most 253"),
    ])
    func invalidRPIDsAreRefusedByName(rpID: String, problem: String) throws {
        let error = #expect(throws: ConfigurationError.self) {
            try loaded(["LATCHKEY_RP_ID": rpID, "LATCHKEY_ORIGINS": "android:apk-key-hash:" + String(repeating: "A", count: 43)])
        }
        let message = error?.message ?? ""
        #expect(message.contains("rpID (LATCHKEY_RP_ID)") && message.contains(problem), "\(message)")
    }

    @Test(arguments: ["localhost", "example.com", "login.example.co.uk", "xn--bcher-kva.de", "a-b.c1.example"])
    func validRPIDsPass(rpID: String) {
        #expect(LatchkeyConfiguration.rpIDProblem(rpID) == nil)
    }
}
