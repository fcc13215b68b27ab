import Configuration
import LatchkeyJSON
import Logging
import WebAuthn

/// One configuration key, declared once in ``LatchkeyConfiguration/keys``. Its variable, its default (the property's
/// initial value), its `check-config` line and its row in docs/CONFIGURATION.md all follow from the declaration.
public struct ConfigurationKey: Sendable {
    /// How much of a value may be shown: all of it, none of it, or all but the password of a URL
    /// (`scheme://user:password@host/...`, or a `password` query item).
    public enum Secrecy: Sendable { case none, whole, urlPassword }

    /// The key in the configuration file, such as `rpID`.
    public let name: String
    /// One paragraph of Markdown: the key's row in docs/CONFIGURATION.md.
    public let documentation: String
    public let secrecy: Secrecy
    /// The Default column when the default follows from other keys (`origins`).
    public let defaultDescription: String?
    let kind: ValueKind
    /// Whether the value is a path, resolved against the ``LatchkeyHome`` when it is relative.
    let isPath: Bool
    let get: @Sendable (LatchkeyConfiguration) -> ConfigContent
    /// Stores a value of the key's type; for any other, returns why not (one problem per bad item of a list).
    let set: @Sendable (inout LatchkeyConfiguration, ConfigContent) -> [String]
    /// Every problem with the value, in the whole configuration.
    let check: @Sendable (LatchkeyConfiguration) -> [String]
    /// The other keys ``check`` compares the value with: when one of them cannot be read, the value is
    /// not checked (it would be compared with a default nobody chose).
    let reads: [String]
    /// For a default that follows from other keys: what from, and its value.
    let derivedDefault: (note: String, compute: @Sendable (LatchkeyConfiguration) -> ConfigContent)?

    /// `LATCHKEY_` and the name in upper snake case: `rpID` → `LATCHKEY_RP_ID`.
    public var environmentName: String { LatchkeyConfiguration.environmentName(of: name) }
    /// Whether swift-configuration treats the value as secret too (its access reports show `<REDACTED>`).
    public var isSecret: Bool { secrecy != .none }

    /// A problem with each part of a value, nil for a good one: one for a value, one per item of a list.
    typealias Check<Value> = @Sendable (Value, LatchkeyConfiguration) -> [String?]

    init<Value: ConfigurationValue>(
        _ name: String, _ path: WritableKeyPath<LatchkeyConfiguration, Value> & Sendable, secrecy: Secrecy = .none,
        isPath: Bool = false, check: @escaping Check<Value> = { _, _ in [] }, reading reads: [String] = [],
        derived: (description: String, note: String, compute: @Sendable (LatchkeyConfiguration) -> Value)? = nil,
        _ documentation: String
    ) {
        (self.name, kind, self.documentation, self.secrecy, self.isPath) = (name, Value.kind, documentation, secrecy, isPath)
        defaultDescription = derived?.description
        get = { $0[keyPath: path].content }
        set = { configuration, content in
            guard let value = Value(content: content) else { return Value.problems(with: content) }
            configuration[keyPath: path] = value
            return []
        }
        self.check = { configuration in check(configuration[keyPath: path], configuration).compactMap { $0 } }
        self.reads = reads
        derivedDefault = derived.map { derived in (derived.note, { derived.compute($0).content }) }
    }

    /// A file or folder, resolved against the home, that must exist as `required` says; one that exists
    /// must be of its kind even when it is not required.
    static func path(
        _ name: String, _ path: WritableKeyPath<LatchkeyConfiguration, String> & Sendable, _ kind: PathKind,
        required: PathRequirement, _ documentation: String
    ) -> Self {
        let defaultValue = LatchkeyConfiguration()[keyPath: path]
        return Self(name, path, isPath: true, check: { value, configuration in
            let isRequired = switch required {
            case .always: true
            case .unlessDefault: value != LatchkeyHome.absolute(defaultValue, base: configuration.home)
            case .when(let condition): condition(configuration)
            case .never: false
            }
            return [LatchkeyConfiguration.pathProblem(value, kind, required: isRequired)]
        }, documentation)
    }

    enum PathKind: String, Sendable { case file, folder }

    /// When a path key's file or folder must exist. `unlessDefault`: the default may be missing, a path someone chose not.
    enum PathRequirement: Sendable {
        case always, unlessDefault, never
        case when(@Sendable (LatchkeyConfiguration) -> Bool)
    }

    /// The value as it may be shown: secrets redacted, lists comma-separated.
    public func displayValue(in configuration: LatchkeyConfiguration) -> String {
        switch get(configuration) {
        case .stringArray(let items): items.map(redact).joined(separator: ",")
        case .string(let text): redact(text)
        case .int(let number): redact(String(number))
        case .bool(let flag): redact(String(flag))
        case let content: redact("\(content)")
        }
    }

    /// A text of this key (a value, a variable's text) as it may be shown.
    func redact(_ text: String) -> String {
        switch secrecy {
        case .none: text
        case .whole: text.isEmpty ? "" : ConfigurationRedaction.mark
        case .urlPassword: ConfigurationRedaction.redactingURLPassword(text)
        }
    }
}

/// The type of a key's value: in the file a JSON string, whole number, `true`/`false` or array of strings; in a
/// variable its text, decimal digits, `true`/`false` (or 1/0, yes/no, on/off) or comma-separated items.
enum ValueKind: Sendable {
    case string, integer, boolean, list

    /// What a file's value of another type is told.
    var expectation: String {
        switch self {
        case .string: "must be a string"
        case .integer: "must be a whole number"
        case .boolean: "must be true or false"
        case .list: "must be an array of strings"
        }
    }

    /// Why a variable's text (as it may be shown) cannot be read as this kind.
    func problem(shown text: String) -> String {
        switch self {
        case .integer: "\"\(text)\" is not a whole number"
        case .boolean: "\"\(text)\" is not true or false (nor 1/0, yes/no, on/off)"
        case .string, .list: "\"\(text)\" cannot be read"
        }
    }

    /// A variable's text in the form swift-configuration reads: a whole number without blanks, a boolean as true/false.
    func normalized(_ text: String) -> String {
        switch (self, text.lowercased()) {
        case (.integer, _): text.trimmingCharacters(in: .whitespaces)
        case (.boolean, "true"), (.boolean, "1"), (.boolean, "yes"), (.boolean, "on"): "true"
        case (.boolean, "false"), (.boolean, "0"), (.boolean, "no"), (.boolean, "off"): "false"
        default: text
        }
    }

    /// A file's JSON value as this kind, or nil; stricter than swift-configuration, which would read `1` as true,
    /// skip `null` and flatten objects.
    func content(_ value: JSONValue) -> ConfigContent? {
        switch (self, value) {
        case (.string, .string(let text)): .string(text)
        case (.boolean, .bool(let flag)): .bool(flag)
        case (.integer, .number(let number)) where number == number.rounded() && abs(number) < 1e9: .int(Int(number))
        case (.list, .array(let items)): items.allSatisfy { $0.stringValue != nil } ? .stringArray(items.compactMap(\.stringValue)) : nil
        default: nil
        }
    }

    /// The value of `key` from the first provider of `reader` that has it.
    func read(_ key: String, from reader: ConfigReader, isSecret: Bool) throws -> ConfigContent {
        switch self {
        case .string: .string(try reader.requiredString(forKey: ConfigKey([key]), isSecret: isSecret))
        case .integer: .int(try reader.requiredInt(forKey: ConfigKey([key]), isSecret: isSecret))
        case .boolean: .bool(try reader.requiredBool(forKey: ConfigKey([key]), isSecret: isSecret))
        case .list: .stringArray(try reader.requiredStringArray(forKey: ConfigKey([key]), isSecret: isSecret))
        }
    }
}

/// A type a key's value may have.
protocol ConfigurationValue: Sendable {
    static var kind: ValueKind { get }
    init?(content: ConfigContent)
    var content: ConfigContent { get }
    /// Why `content` is not a value of this type: one problem, or one per bad item of a list.
    static func problems(with content: ConfigContent) -> [String]
}

extension ConfigurationValue {
    static func problems(with content: ConfigContent) -> [String] { [kind.expectation] }
}

extension String: ConfigurationValue {
    static let kind = ValueKind.string
    init?(content: ConfigContent) { guard case .string(let text) = content else { return nil }; self = text }
    var content: ConfigContent { .string(self) }
}

extension Int: ConfigurationValue {
    static let kind = ValueKind.integer
    init?(content: ConfigContent) { guard case .int(let number) = content else { return nil }; self = number }
    var content: ConfigContent { .int(self) }
}

extension Bool: ConfigurationValue {
    static let kind = ValueKind.boolean
    init?(content: ConfigContent) { guard case .bool(let flag) = content else { return nil }; self = flag }
    var content: ConfigContent { .bool(self) }
}

/// A list of texts, or of values parsed from them once (``ConfigurationItem``).
extension Array: ConfigurationValue where Element: ConfigurationItem {
    static var kind: ValueKind { .list }
    init?(content: ConfigContent) {
        guard case .stringArray(let items) = content else { return nil }
        var values: [Element] = []
        for item in items {
            guard case .success(let value) = Element.parse(item) else { return nil }
            values.append(value)
        }
        self = values
    }
    var content: ConfigContent { .stringArray(map(\.configuredText)) }
    static func problems(with content: ConfigContent) -> [String] {
        guard case .stringArray(let items) = content else { return [kind.expectation] }
        return items.compactMap { item in
            guard case .failure(let problem) = Element.parse(item) else { return nil }
            return problem.message
        }
    }
}

/// A value parsed once from its text, or nil for an empty text.
extension Optional: ConfigurationValue where Wrapped: ConfigurationItem {
    static var kind: ValueKind { .string }
    init?(content: ConfigContent) {
        guard let text = String(content: content) else { return nil }
        guard !text.isEmpty else { self = .none; return }
        guard case .success(let value) = Wrapped.parse(text) else { return nil }
        self = value
    }
    var content: ConfigContent { .string(self?.configuredText ?? "") }
    static func problems(with content: ConfigContent) -> [String] {
        guard let text = String(content: content) else { return [kind.expectation] }
        guard case .failure(let problem) = Wrapped.parse(text) else { return [] }
        return [problem.message]
    }
}

/// A key of one value parsed once from its text: the RP ID.
extension RelyingPartyID: ConfigurationValue {
    static var kind: ValueKind { .string }
    init?(content: ConfigContent) {
        guard let text = String(content: content), case .success(let value) = Self.parse(text) else { return nil }
        self = value
    }
    var content: ConfigContent { .string(value) }
    static func problems(with content: ConfigContent) -> [String] {
        guard let text = String(content: content) else { return [kind.expectation] }
        guard case .failure(let problem) = parse(text) else { return [] }
        return [problem.message]
    }
}

/// A string that names a case of an enumeration.
protocol ConfigurationChoice: ConfigurationValue, RawRepresentable<String>, CaseIterable {}

extension ConfigurationChoice {
    static var kind: ValueKind { .string }
    init?(content: ConfigContent) {
        guard let text = String(content: content) else { return nil }
        self.init(rawValue: text)
    }
    var content: ConfigContent { .string(rawValue) }
    static func problems(with content: ConfigContent) -> [String] {
        guard let text = String(content: content) else { return [kind.expectation] }
        return ["\"\(text)\" is not one of \(allCases.map(\.rawValue).joined(separator: ", "))"]
    }
}

extension AttestationPolicy.Mode: ConfigurationChoice {}
extension UserVerificationRequirement: ConfigurationChoice {}
extension ResidentKeyRequirement: ConfigurationChoice {}
extension SyncedCredentialPolicy: ConfigurationChoice {}
extension BackupEligibilityChanges: ConfigurationChoice {}
extension Logger.Level: ConfigurationChoice {}
