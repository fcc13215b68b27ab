import Configuration
import Foundation
import Synchronization
import WebAuthn

/// A configuration that cannot be used: every problem found, each naming the key, where its value
/// came from (the environment variable or the file) and what is wrong. Secret values are never in it.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// One line per problem, in the order of the keys.
    public let problems: [String]
    /// What was found wrong but not fatal, such as an unknown `LATCHKEY_*` variable (which may be
    /// the cause of a problem: a misspelt variable leaves its key at the default).
    public var warnings: [String] = []
    /// The problems, one per line.
    public var message: String { problems.joined(separator: "\n") }
    public var description: String { message }
    public init(_ message: String) { problems = [message] }
    public init(problems: [String]) { self.problems = problems }

    /// `port (LATCHKEY_PORT): "x" is not a whole number`.
    init(key: String, source: ConfigurationSource, _ problem: String) {
        self.init(Self.line(key: key, source: source, problem))
    }

    static func line(key: String, source: ConfigurationSource, _ problem: String) -> String {
        "\(key) (\(source)): \(problem)"
    }
}

/// Where a configuration value came from.
public enum ConfigurationSource: Sendable, Equatable, CustomStringConvertible {
    /// An environment variable, by name (`LATCHKEY_PORT`).
    case environment(String)
    /// The configuration file, by path.
    case file(String)
    /// The key's default.
    case defaultValue
    /// A default computed from other keys (`origins`, from rpID and port).
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

/// One effective setting, as `check-config` prints it.
public struct ConfigurationSetting: Sendable, Equatable {
    public let key: String
    /// The value as it may be shown: secrets redacted, lists comma-separated.
    public let value: String
    public let source: ConfigurationSource
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

    /// Warnings about the loaded values themselves.
    var configurationWarnings: [String] {
        guard configuration.conformanceMode else { return [] }
        return ["conformanceMode is on (\(sources["conformanceMode"] ?? .defaultValue)): it is for the FIDO conformance tools only, never for production: anyone may add a passkey to an existing username, assertions without user presence pass and the cross-site request guard is off"]
    }

    /// Every key in declaration order, with its shown value and source.
    public var settings: [ConfigurationSetting] {
        LatchkeyConfiguration.keys.map {
            ConfigurationSetting(key: $0.name, value: $0.displayValue(in: configuration), source: sources[$0.name] ?? .defaultValue)
        }
    }

    /// One line per key: name, value, source in parentheses; secrets redacted.
    public var summary: [String] {
        let settings = settings
        let values = settings.map { $0.value.isEmpty ? "(none)" : $0.value }
        let keyWidth = settings.map(\.key.count).max() ?? 0
        let valueWidth = min(values.map(\.count).max() ?? 0, 40)
        return zip(settings, values).map { setting, value in
            setting.key.padding(toLength: keyWidth, withPad: " ", startingAt: 0) + "  "
                + (value.count < valueWidth ? value.padding(toLength: valueWidth, withPad: " ", startingAt: 0) : value)
                + "  (\(setting.source))"
        }
    }
}

/// Reads the configuration through one swift-configuration `ConfigReader` whose providers are, in
/// precedence order: `LATCHKEY_*` environment variables, the JSON file, the defaults.
public enum ConfigurationLoader {
    /// Read when `LATCHKEY_CONFIG` is not set and the file exists.
    public static let defaultFile = "Config/latchkey.json"
    /// The environment variable naming another configuration file (which must then exist).
    public static let fileVariable = "LATCHKEY_CONFIG"

    /// Loads the file (`LATCHKEY_CONFIG`, else `defaultFile` if it exists), the environment and the
    /// defaults, resolves relative paths against the home, and validates the result. The error
    /// lists every problem, not only the first; both carry the warnings.
    /// - Parameters:
    ///   - defaultFile: relative to the home; `LATCHKEY_CONFIG` is relative to the current directory.
    ///   - home: where relative paths lead; by default `LATCHKEY_HOME`, else the installation of
    ///     the running executable, else the current directory (``LatchkeyHome/find(environment:executable:currentDirectory:)``).
    ///   - accessReporter: also told of every read (swift-configuration's access reporting; values
    ///     of secret keys reach it marked secret).
    public static func load(
        environment: [String: String], defaultFile: String = defaultFile, home: LatchkeyHome? = nil,
        accessReporter: (any AccessReporter)? = nil
    ) throws -> LoadedConfiguration {
        let warnings = unknownVariableWarnings(in: environment)
        do {
            let home = try home ?? LatchkeyHome.find(environment: environment)
            var loaded = try loadValues(environment: environment, defaultFile: home.resolve(defaultFile), home: home, accessReporter: accessReporter)
            loaded.warnings = warnings + loaded.configurationWarnings
            return loaded
        } catch var error as ConfigurationError {
            error.warnings = warnings
            throw error
        }
    }

    static func loadValues(
        environment: [String: String], defaultFile: String, home: LatchkeyHome, accessReporter: (any AccessReporter)?
    ) throws -> LoadedConfiguration {
        // The providers in precedence order, each with the source it stands for.
        var providers: [any ConfigProvider] = []
        var roles: [ProviderRole] = []

        let environmentVariables = normalizedEnvironment(environment)
        providers.append(
            EnvironmentVariablesProvider(
                environmentVariables: environmentVariables,
                secretsSpecifier: .specific(Set(LatchkeyConfiguration.keys.filter(\.isSecret).map(\.environmentName)))
            ).prefixKeys(with: "latchkey"))  // `latchkey.rpID` is read from LATCHKEY_RP_ID
        roles.append(.environment)

        // Problems of the file as a whole (unknown keys), and of values that could not be read, by
        // key: such a key is not checked further.
        var fileProblems: [String] = []
        var readProblems: [String: String] = [:]

        let path = environment[fileVariable] ?? defaultFile
        if let file = try ConfigurationFile.read(path, required: environment[fileVariable] != nil) {
            providers.append(file)
            roles.append(.file(path))
            for problem in file.problems {
                if let key = problem.key { readProblems[key] = problem.line } else { fileProblems.append(problem.line) }
            }
        }

        let defaults = LatchkeyConfiguration()
        providers.append(InMemoryProvider(name: "defaults", values: Dictionary(uniqueKeysWithValues:
            LatchkeyConfiguration.keys.filter { $0.derivedDefault == nil }.map {
                (AbsoluteConfigKey([$0.name]), ConfigValue($0.get(defaults), isSecret: $0.isSecret))
            })))
        roles.append(.defaults)

        let recorder = LookupRecorder()
        let reader = ConfigReader(
            providers: providers,
            accessReporter: accessReporter.map { BroadcastingAccessReporter(upstreams: [recorder, $0]) } ?? recorder)

        var configuration = LatchkeyConfiguration()
        var sources: [String: ConfigurationSource] = [:]
        for key in LatchkeyConfiguration.keys {
            let content = try? read(key, from: reader)
            // The provider that answered: the first with a value, or the one that failed.
            let answer = recorder.take()?.providerResults.enumerated().first { _, provider in
                if case .success(let lookup) = provider.result { return lookup.value != nil }
                return true
            }
            var value: ConfigContent
            let source: ConfigurationSource
            func fail(_ source: ConfigurationSource, _ problem: String) {
                readProblems[key.name] = ConfigurationError.line(key: key.name, source: source, problem)
                sources[key.name] = source
            }
            switch answer.map({ (roles[$0.offset], $0.element.result) }) {
            case let (role, .failure)?:
                let source = role.source(of: key, encodedKey: nil)
                fail(source, problem(key, raw: environmentVariables[key.environmentName], source: source))
                continue
            case let (role, .success(lookup))?:
                source = role.source(of: key, encodedKey: lookup.encodedKey)
                guard let content else {
                    fail(source, problem(key, raw: nil, source: source))
                    continue
                }
                value = content
            case nil:
                guard let derived = key.derivedDefault else {
                    fail(.defaultValue, "has no value")
                    continue
                }
                source = .derived(derived.note)
                value = derived.compute(configuration)
            }
            // `a, ,b` in a variable lists a and b.
            if case .environment = source, case .stringArray(let items) = value { value = .stringArray(items.filter { !$0.isEmpty }) }
            if let problem = key.set(&configuration, value) {
                fail(source, problem)
                continue
            }
            sources[key.name] = source
        }
        configuration = configuration.resolvingPaths(against: home)
        let problems = fileProblems + configuration.problems(sources: sources, readProblems: readProblems)
        guard problems.isEmpty else { throw ConfigurationError(problems: problems) }
        return LoadedConfiguration(configuration: configuration, sources: sources, home: home)
    }

    /// What a provider of the reader stands for.
    enum ProviderRole {
        case environment
        case file(String)
        case defaults

        func source(of key: ConfigurationKey, encodedKey: String?) -> ConfigurationSource {
            switch self {
            // The variable's name as swift-configuration encoded it.
            case .environment: .environment(encodedKey ?? key.environmentName)
            case .file(let path): .file(path)
            case .defaults: .defaultValue
            }
        }
    }

    static func read(_ key: ConfigurationKey, from reader: ConfigReader) throws -> ConfigContent {
        let name = ConfigKey([key.name])
        return switch key.kind {
        case .string: .string(try reader.requiredString(forKey: name, isSecret: key.isSecret))
        case .integer: .int(try reader.requiredInt(forKey: name, isSecret: key.isSecret))
        case .boolean: .bool(try reader.requiredBool(forKey: name, isSecret: key.isSecret))
        case .list: .stringArray(try reader.requiredStringArray(forKey: name, isSecret: key.isSecret))
        }
    }

    /// Why a provider could not give a key's value as its kind.
    static func problem(_ key: ConfigurationKey, raw: String?, source: ConfigurationSource) -> String {
        guard case .environment = source, let raw else { return ConfigurationFile.expectation(key.kind) }
        let shown = key.redact(raw)
        return switch key.kind {
        case .integer: "\"\(shown)\" is not a whole number"
        case .boolean: "\"\(shown)\" is not true or false (nor 1/0, yes/no, on/off)"
        case .string, .list: "\"\(shown)\" cannot be read"
        }
    }

    /// The declared `LATCHKEY_*` variables, in the forms swift-configuration reads: whole numbers
    /// without surrounding blanks, booleans also as 1/0, yes/no, on/off. Other variables are left out.
    static func normalizedEnvironment(_ environment: [String: String]) -> [String: String] {
        var variables: [String: String] = [:]
        for key in LatchkeyConfiguration.keys {
            guard let raw = environment[key.environmentName] else { continue }
            switch key.kind {
            case .integer:
                variables[key.environmentName] = raw.trimmingCharacters(in: .whitespaces)
            case .boolean:
                switch raw.lowercased() {
                case "true", "1", "yes", "on": variables[key.environmentName] = "true"
                case "false", "0", "no", "off": variables[key.environmentName] = "false"
                default: variables[key.environmentName] = raw
                }
            case .string, .list:
                variables[key.environmentName] = raw
            }
        }
        return variables
    }

    /// Keeps the provider results of the latest read, so that each value can be traced to its source.
    final class LookupRecorder: AccessReporter {
        private let latest = Mutex<AccessEvent?>(nil)

        func report(_ event: AccessEvent) {
            latest.withLock { $0 = event }
        }

        func take() -> AccessEvent? {
            latest.withLock { event in
                defer { event = nil }
                return event
            }
        }
    }
}

/// The JSON configuration file: read once, checked strictly (known keys, JSON types), and its
/// checked members handed to swift-configuration as a `JSONSnapshot`.
struct ConfigurationFile: ConfigProvider {
    /// A member of the file that cannot be used; it is not handed on.
    struct Problem: Sendable {
        /// The key, when the member is a known key with a value of the wrong type.
        let key: String?
        let line: String
    }

    let path: String
    let contents: JSONSnapshot
    /// Unknown keys and values of the wrong type.
    let problems: [Problem]

    /// Where JSON text stops being JSON, as `line L, column C` (both from 1), when Foundation's
    /// parser says at which character.
    static func syntaxErrorPlace(in data: Data) -> String? {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return nil
        } catch {
            let detail = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? ""
            guard let range = detail.range(of: #"character \d+"#, options: .regularExpression),
                  let offset = Int(detail[range].dropFirst("character ".count))
            else { return nil }
            var line = 1
            var column = 1
            for byte in data.prefix(offset) {
                if byte == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {
                    column += 1  // one per character, not per UTF-8 continuation byte
                }
            }
            let what = detail.components(separatedBy: " around").first ?? detail
            return "line \(line), column \(column): \(what.lowercased())"
        }
    }

    /// `nil` when the file does not exist and is not required.
    static func read(_ path: String, required: Bool) throws -> ConfigurationFile? {
        guard FileManager.default.fileExists(atPath: path) else {
            if required { throw ConfigurationError("\(ConfigurationLoader.fileVariable): configuration file \(path) does not exist") }
            return nil
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("\(path): cannot read the configuration file")
        }
        let parsed: JSONValue
        do {
            parsed = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw ConfigurationError("\(path): not valid JSON" + (Self.syntaxErrorPlace(in: data).map { " (\($0))" } ?? ""))
        }
        guard case .object(let members) = parsed else {
            throw ConfigurationError("\(path): the configuration file must hold one JSON object")
        }
        // Keys starting with `_` are comments: checked for nothing, and not handed on.
        var settings = members.filter { !$0.key.hasPrefix("_") }
        var problems: [Problem] = []
        for (name, value) in settings.sorted(by: { $0.key < $1.key }) {
            guard let key = LatchkeyConfiguration.key(named: name) else {
                let hint = ConfigurationLoader.closestKey(to: name).map { "did you mean \"\($0)\"?" }
                    ?? "known keys: \(LatchkeyConfiguration.keys.map(\.name).joined(separator: ", "))"
                problems.append(Problem(key: nil, line: "\(path): unknown configuration key \"\(name)\"; \(hint)"))
                settings[name] = nil
                continue
            }
            guard matches(value, key.kind) else {
                problems.append(Problem(key: name, line: ConfigurationError.line(key: name, source: .file(path), expectation(key.kind))))
                settings[name] = nil
                continue
            }
        }
        do {
            // What was checked is what swift-configuration reads: the members parsed above.
            let checked = try JSONEncoder().encode(JSONValue.object(settings))
            let secrets = Set(LatchkeyConfiguration.keys.filter(\.isSecret).map(\.name))
            return ConfigurationFile(path: path, contents: try JSONSnapshot(
                data: checked.bytes, providerName: "file \(path)", parsingOptions: .init(secretsSpecifier: .specific(secrets))),
                problems: problems)
        } catch {
            throw ConfigurationError("\(path): \(error)")
        }
    }

    /// Stricter than swift-configuration, which would read `1` as true, skip `null` and flatten objects.
    static func matches(_ value: JSONValue, _ kind: ConfigurationKey.Kind) -> Bool {
        switch (kind, value) {
        case (.string, .string), (.boolean, .bool): true
        case (.integer, .number(let number)): number == number.rounded() && abs(number) < 1e9
        case (.list, .array(let items)): items.allSatisfy { $0.stringValue != nil }
        default: false
        }
    }

    static func expectation(_ kind: ConfigurationKey.Kind) -> String {
        switch kind {
        case .string: "must be a string"
        case .integer: "must be a whole number"
        case .boolean: "must be true or false"
        case .list: "must be an array of strings"
        }
    }

    var providerName: String { contents.providerName }

    func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        try contents.value(forKey: key, type: type)
    }

    func fetchValue(forKey key: AbsoluteConfigKey, type: ConfigType) async throws -> LookupResult {
        try value(forKey: key, type: type)
    }

    nonisolated(nonsending) func watchValue<Return: ~Copyable>(
        forKey key: AbsoluteConfigKey, type: ConfigType,
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<Result<LookupResult, any Error>, Never>) async throws -> Return
    ) async throws -> Return {
        try await watchValueFromValue(forKey: key, type: type, updatesHandler: updatesHandler)
    }

    func snapshot() -> any ConfigSnapshot { contents }

    nonisolated(nonsending) func watchSnapshot<Return: ~Copyable>(
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>) async throws -> Return
    ) async throws -> Return {
        try await watchSnapshotFromSnapshot(updatesHandler: updatesHandler)
    }
}

extension LatchkeyConfiguration {
    /// Every problem in declaration order: for a key whose value could not be read, that problem;
    /// for the others, what their checks find. Each names the key and where its value came from.
    /// A default derived from keys declared before it is not checked once those have a problem:
    /// its own would only repeat theirs (`origins` from a bad `rpID`).
    func problems(sources: [String: ConfigurationSource], readProblems: [String: String] = [:]) -> [String] {
        var problems: [String] = []
        for key in Self.keys {
            if let problem = readProblems[key.name] {
                problems.append(problem)
                continue
            }
            let source = sources[key.name] ?? .defaultValue
            if case .derived = source, !problems.isEmpty { continue }
            problems += key.check(self).map { ConfigurationError.line(key: key.name, source: source, $0) }
        }
        return problems + installationProblems
    }
}
