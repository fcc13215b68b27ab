import Configuration
import Foundation

/// A configuration that cannot be used: every problem, each naming the key, where its value came from and what is
/// wrong. Secret values are never in it.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// One line per problem, in the order of the keys.
    public let problems: [String]
    /// What is wrong but not fatal, such as an unknown `LATCHKEY_*` variable (which may be the cause of a problem).
    public var warnings: [String] = []
    /// The problems, one per line.
    public var message: String { problems.joined(separator: "\n") }
    public var description: String { message }
    public init(_ message: String) { problems = [message] }
    public init(problems: [String]) { self.problems = problems }
}

/// Where a value came from.
public enum ConfigurationSource: Sendable, Equatable, CustomStringConvertible {
    /// An environment variable, by name (`LATCHKEY_PORT`).
    case environment(String)
    /// The configuration file, by path.
    case file(String)
    case defaultValue
    /// A default that follows from other keys (`origins`, from rpID and port).
    case derived(String)

    public var description: String {
        switch self {
        case .environment(let name): name
        case .file(let path): "file \(path)"
        case .defaultValue: "default"
        case .derived(let note): "default, \(note)"
        }
    }
}

/// A loaded and validated configuration, and where each of its values came from.
public struct LoadedConfiguration: Sendable {
    public let configuration: LatchkeyConfiguration
    /// By key name; every key has one.
    public let sources: [String: ConfigurationSource]
    /// The folder relative paths were resolved against.
    public let home: LatchkeyHome
    /// Not fatal, but to be told: unknown `LATCHKEY_*` variables, conformance mode.
    public internal(set) var warnings: [String] = []
    /// What `check-config` points out about a deployment that works as configured but is likely not what was meant
    /// (an admin listener on every interface, app IDs beside RP ID `localhost`); not logged at every start.
    public internal(set) var advice: [String] = []

    /// One line per key: name, value and source in parentheses, in columns; secrets redacted.
    public var summary: [String] {
        let keys = LatchkeyConfiguration.keys
        let values = keys.map { $0.displayValue(in: configuration) }.map { $0.isEmpty ? "(none)" : $0 }
        let keyWidth = keys.map(\.name.count).max() ?? 0
        let valueWidth = min(values.map(\.count).max() ?? 0, 40)
        return zip(keys, values).map { key, value in
            key.name.padding(toLength: keyWidth, withPad: " ", startingAt: 0) + "  "
                + (value.count < valueWidth ? value.padding(toLength: valueWidth, withPad: " ", startingAt: 0) : value)
                + "  (\(sources[key.name] ?? .defaultValue))"
        }
    }
}

/// Reads the configuration through one swift-configuration `ConfigReader` whose providers are, in order of
/// precedence, `LATCHKEY_*` environment variables, the JSON file and the defaults.
public enum ConfigurationLoader {
    /// Read when `LATCHKEY_CONFIG` is not set and the file exists.
    public static let defaultFile = "Config/latchkey.json"
    /// The environment variable naming another configuration file, which must then exist.
    public static let fileVariable = "LATCHKEY_CONFIG"

    /// Loads the file (`LATCHKEY_CONFIG`, else `defaultFile` if it exists), the environment and the defaults, resolves
    /// relative paths against the home and validates the result. The error lists every problem; both carry the warnings.
    /// - Parameters:
    ///   - defaultFile: relative to the home; `LATCHKEY_CONFIG` is relative to the current directory.
    ///   - home: where relative paths lead; by default ``LatchkeyHome/find(environment:executable:currentDirectory:)``.
    ///   - accessReporter: also told of every read (values of secret keys marked secret).
    public static func load(
        environment: [String: String], defaultFile: String = defaultFile, home: LatchkeyHome? = nil,
        accessReporter: (any AccessReporter)? = nil
    ) throws -> LoadedConfiguration {
        let warnings = unknownVariableWarnings(in: environment)
        do {
            let home = try home ?? LatchkeyHome.find(environment: environment)
            let path = environment[fileVariable] ?? home.resolve(defaultFile)
            let file = try ConfigurationFile(path, required: environment[fileVariable] != nil)
            var loaded = try read(environment: environment, file: file, home: home, accessReporter: accessReporter)
            loaded.warnings = warnings
            if loaded.configuration.conformanceMode {
                let source = loaded.sources["conformanceMode"] ?? .defaultValue
                loaded.warnings.append("conformanceMode is on (\(source)): it is for the FIDO conformance tools only, never for "
                    + "production: anyone may add a passkey to an existing username, assertions without user presence pass and "
                    + "the cross-site request guard is off")
            }
            if !loaded.configuration.appAttestTestRoots.isEmpty {
                let source = loaded.sources["appAttestTestRoots"] ?? .defaultValue
                loaded.warnings.append("appAttestTestRoots is set (\(source)): it is for tests only: App Attest keys chaining to "
                    + "its roots are accepted as if Apple had attested them")
            }
            if let admin = loaded.configuration.adminAddress, ["0.0.0.0", "::", "0:0:0:0:0:0:0:0"].contains(admin.host) {
                let source = loaded.sources["adminAddress"] ?? .defaultValue
                loaded.advice.append("adminAddress listens on every interface (\(source): \(admin.text)): the admin API and the "
                    + "operator console answer wherever this machine can be reached; bind it to 127.0.0.1 or a private network's "
                    + "address unless a firewall keeps the port private")
            }
            if !loaded.configuration.appleAppIDs.isEmpty, loaded.configuration.rpID == .localhost {
                let source = loaded.sources["appleAppIDs"] ?? .defaultValue
                loaded.advice.append("appleAppIDs is set (\(source)) while rpID is localhost: iOS lets an app use passkeys only "
                    + "for a domain whose apple-app-site-association it fetches over https; set rpID to that domain (docs/IOS.md)")
            }
            return loaded
        } catch var error as ConfigurationError {
            error.warnings = warnings
            throw error
        }
    }

    /// Every key from the first source that has it, then every check. A key whose value cannot be read is not checked;
    /// nor is a derived default once a key before it has a problem, which it would only repeat (`origins` of a bad `rpID`),
    /// nor a key compared with another that cannot be read (`origins` with a bad `rpID`).
    static func read(
        environment: [String: String], file: ConfigurationFile?, home: LatchkeyHome, accessReporter: (any AccessReporter)?
    ) throws(ConfigurationError) -> LoadedConfiguration {
        let keys = LatchkeyConfiguration.keys
        var configuration = LatchkeyConfiguration()
        var variables: [String: String] = [:]
        for key in keys { variables[key.environmentName] = environment[key.environmentName].map(key.kind.normalized) }
        let secrets = SecretsSpecifier<String, String>.specific(Set(keys.filter(\.isSecret).map(\.environmentName)))
        // `latchkey.rpID` is read from LATCHKEY_RP_ID.
        var providers: [any ConfigProvider] = [
            EnvironmentVariablesProvider(environmentVariables: variables, secretsSpecifier: secrets).prefixKeys(with: "latchkey")
        ]
        if let file { providers.append(InMemoryProvider(name: "file \(file.path)", values: file.values)) }
        let defaults = keys.filter { $0.derivedDefault == nil }.map { key in
            (AbsoluteConfigKey([key.name]), ConfigValue(key.get(configuration), isSecret: key.isSecret))
        }
        providers.append(InMemoryProvider(name: "defaults", values: Dictionary(uniqueKeysWithValues: defaults)))
        let reader = ConfigReader(providers: providers, accessReporter: accessReporter)

        var sources: [String: ConfigurationSource] = [:]
        // By key, the problems of a value that cannot be read.
        var unreadable = (file?.problems ?? [:]).mapValues { [$0] }
        for key in keys {
            let raw = variables[key.environmentName]
            let source: ConfigurationSource =
                if raw != nil { .environment(key.environmentName) }
                else if let file, file.values[AbsoluteConfigKey([key.name])] != nil { .file(file.path) }
                else if let derived = key.derivedDefault { .derived(derived.note) }
                else { .defaultValue }
            sources[key.name] = source
            let problems: [String]
            if case .derived = source, let derived = key.derivedDefault {
                problems = key.set(&configuration, derived.compute(configuration))
            } else if var content = try? key.kind.read(key.name, from: reader, isSecret: key.isSecret) {
                // `a, ,b` in a variable lists a and b.
                if raw != nil, case .stringArray(let items) = content { content = .stringArray(items.filter { !$0.isEmpty }) }
                problems = key.set(&configuration, content)
            } else {
                problems = [raw.map { key.kind.problem(shown: key.redact($0)) } ?? key.kind.expectation]
            }
            if !problems.isEmpty, unreadable[key.name] == nil { unreadable[key.name] = problems.map { "\(key.name) (\(source)): \($0)" } }
        }
        configuration = configuration.resolvingPaths(against: home)
        var problems: [String] = []
        for key in keys {
            let source = sources[key.name] ?? .defaultValue
            if let unread = unreadable[key.name] {
                problems += unread
            } else if case .derived = source, !problems.isEmpty {
                continue
            } else if key.reads.contains(where: { unreadable[$0] != nil }) {
                continue
            } else {
                problems += key.check(configuration).map { "\(key.name) (\(source)): \($0)" }
            }
        }
        problems = (file?.unknownKeys ?? []) + problems + configuration.installationProblems
        guard problems.isEmpty else { throw ConfigurationError(problems: problems) }
        return LoadedConfiguration(configuration: configuration, sources: sources, home: home)
    }
}
