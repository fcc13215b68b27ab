import Configuration
import Foundation
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
            let path = environment[fileVariable] ?? home.resolve(defaultFile)
            let file = try ConfigurationFile(path, required: environment[fileVariable] != nil)
            let (configuration, sources) = try read(environment: environment, file: file, home: home, accessReporter: accessReporter)
            let conformance = configuration.conformanceMode
                ? ["conformanceMode is on (\(sources["conformanceMode"] ?? .defaultValue)): it is for the FIDO conformance tools only, never for production: anyone may add a passkey to an existing username, assertions without user presence pass and the cross-site request guard is off"]
                : []
            return LoadedConfiguration(configuration: configuration, sources: sources, home: home, warnings: warnings + conformance)
        } catch var error as ConfigurationError {
            error.warnings = warnings
            throw error
        }
    }

    /// Every key, from the first source that has it; then every check.
    static func read(
        environment: [String: String], file: ConfigurationFile?, home: LatchkeyHome, accessReporter: (any AccessReporter)?
    ) throws(ConfigurationError) -> (configuration: LatchkeyConfiguration, sources: [String: ConfigurationSource]) {
        let keys = LatchkeyConfiguration.keys
        let variables = normalizedEnvironment(environment)
        let defaults = LatchkeyConfiguration()
        var providers: [any ConfigProvider] = [
            // `latchkey.rpID` is read from LATCHKEY_RP_ID.
            EnvironmentVariablesProvider(
                environmentVariables: variables, secretsSpecifier: .specific(Set(keys.filter(\.isSecret).map(\.environmentName)))
            ).prefixKeys(with: "latchkey")
        ]
        if let file { providers.append(InMemoryProvider(name: "file \(file.path)", values: file.values)) }
        providers.append(InMemoryProvider(name: "defaults", values: Dictionary(uniqueKeysWithValues: keys.filter { $0.derivedDefault == nil }.map {
            (AbsoluteConfigKey([$0.name]), ConfigValue($0.get(defaults), isSecret: $0.isSecret))
        })))
        let reader = ConfigReader(providers: providers, accessReporter: accessReporter)

        var configuration = defaults
        var sources: [String: ConfigurationSource] = [:]
        // Values that could not be read, by key: such a key is not checked further.
        var readProblems = file?.problems ?? [:]
        for key in keys {
            let raw = variables[key.environmentName]
            let source: ConfigurationSource =
                if raw != nil { .environment(key.environmentName) }
                else if let file, file.values[AbsoluteConfigKey([key.name])] != nil { .file(file.path) }
                else if let derived = key.derivedDefault { .derived(derived.note) }
                else { .defaultValue }
            sources[key.name] = source
            var content: ConfigContent
            do {
                if case .derived = source, let derived = key.derivedDefault {
                    content = derived.compute(configuration)
                } else {
                    content = try key.read(from: reader)
                }
            } catch {
                readProblems[key.name] = readProblems[key.name] ?? ConfigurationError.line(key: key.name, source: source, problem(key, raw: raw))
                continue
            }
            // `a, ,b` in a variable lists a and b.
            if raw != nil, case .stringArray(let items) = content { content = .stringArray(items.filter { !$0.isEmpty }) }
            if let problem = key.set(&configuration, content) {
                readProblems[key.name] = readProblems[key.name] ?? ConfigurationError.line(key: key.name, source: source, problem)
            }
        }
        configuration = configuration.resolvingPaths(against: home)
        let problems = (file?.unknownKeys ?? []) + configuration.problems(sources: sources, readProblems: readProblems)
        guard problems.isEmpty else { throw ConfigurationError(problems: problems) }
        return (configuration, sources)
    }

    /// Why an environment variable's text is not a value of its key's type; secrets redacted.
    static func problem(_ key: ConfigurationKey, raw: String?) -> String {
        guard let raw else { return key.kind.expectation }
        return switch key.kind {
        case .integer: "\"\(key.redact(raw))\" is not a whole number"
        case .boolean: "\"\(key.redact(raw))\" is not true or false (nor 1/0, yes/no, on/off)"
        case .string, .list: "\"\(key.redact(raw))\" cannot be read"
        }
    }

    /// The declared `LATCHKEY_*` variables, in the forms swift-configuration reads: whole numbers
    /// without surrounding blanks, booleans also as 1/0, yes/no, on/off. Other variables are left out.
    static func normalizedEnvironment(_ environment: [String: String]) -> [String: String] {
        var variables: [String: String] = [:]
        for key in LatchkeyConfiguration.keys {
            guard let raw = environment[key.environmentName] else { continue }
            variables[key.environmentName] = switch (key.kind, raw.lowercased()) {
            case (.integer, _): raw.trimmingCharacters(in: .whitespaces)
            case (.boolean, "true"), (.boolean, "1"), (.boolean, "yes"), (.boolean, "on"): "true"
            case (.boolean, "false"), (.boolean, "0"), (.boolean, "no"), (.boolean, "off"): "false"
            default: raw
            }
        }
        return variables
    }
}

extension ConfigurationKey {
    /// The value of this key, as its type, from the first provider of `reader` that has it.
    func read(from reader: ConfigReader) throws -> ConfigContent {
        let key = ConfigKey([name])
        return switch kind {
        case .string: .string(try reader.requiredString(forKey: key, isSecret: isSecret))
        case .integer: .int(try reader.requiredInt(forKey: key, isSecret: isSecret))
        case .boolean: .bool(try reader.requiredBool(forKey: key, isSecret: isSecret))
        case .list: .stringArray(try reader.requiredStringArray(forKey: key, isSecret: isSecret))
        }
    }
}

/// The JSON configuration file, decoded once and checked strictly (known keys, JSON types): its
/// good members become swift-configuration values, its bad ones problems.
struct ConfigurationFile {
    let path: String
    /// The members of the right type, by key.
    var values: [AbsoluteConfigKey: ConfigValue] = [:]
    /// A line per known key whose value has the wrong type, by key.
    var problems: [String: String] = [:]
    /// A line per unknown key, sorted.
    var unknownKeys: [String] = []

    /// `nil` when the file does not exist and is not required.
    init?(_ path: String, required: Bool) throws(ConfigurationError) {
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
        self.path = path
        // Keys starting with `_` are comments: checked for nothing, and not handed on.
        for (name, value) in members.sorted(by: { $0.key < $1.key }) where !name.hasPrefix("_") {
            guard let key = LatchkeyConfiguration.key(named: name) else {
                let hint = ConfigurationLoader.closestKey(to: name).map { "did you mean \"\($0)\"?" }
                    ?? "known keys: \(LatchkeyConfiguration.keys.map(\.name).joined(separator: ", "))"
                unknownKeys.append("\(path): unknown configuration key \"\(name)\"; \(hint)")
                continue
            }
            guard let content = Self.content(value, key.kind) else {
                problems[name] = ConfigurationError.line(key: name, source: .file(path), key.kind.expectation)
                continue
            }
            values[AbsoluteConfigKey([name])] = ConfigValue(content, isSecret: key.isSecret)
        }
    }

    /// A JSON value as a value of `kind`; stricter than swift-configuration, which would read `1`
    /// as true, skip `null` and flatten objects.
    static func content(_ value: JSONValue, _ kind: ConfigurationKey.Kind) -> ConfigContent? {
        switch (kind, value) {
        case (.string, .string(let text)): .string(text)
        case (.boolean, .bool(let flag)): .bool(flag)
        case (.integer, .number(let number)) where number == number.rounded() && abs(number) < 1e9: .int(Int(number))
        case (.list, .array(let items)): items.allSatisfy { $0.stringValue != nil } ? .stringArray(items.compactMap(\.stringValue)) : nil
        default: nil
        }
    }

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
                    (line, column) = (line + 1, 1)
                } else if byte & 0xC0 != 0x80 {
                    column += 1  // one per character, not per UTF-8 continuation byte
                }
            }
            let what = detail.components(separatedBy: " around").first ?? detail
            return "line \(line), column \(column): \(what.lowercased())"
        }
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
