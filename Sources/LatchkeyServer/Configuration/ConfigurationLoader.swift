import Foundation
import WebAuthn

/// A configuration that cannot be used; the message names the key and the problem.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
    public init(_ message: String) { self.message = message }
}

extension LatchkeyConfiguration {
    /// The keys of the configuration file, each also settable as `LATCHKEY_` + upper snake case.
    static let keys = [
        "host", "port", "rpID", "rpName", "origins", "database", "appleAppIDs", "appleAppLinks",
        "conformanceMode", "challengeTimeout", "sessionTimeout", "publicDirectory", "allowCrossOrigin",
        "topOrigins", "logLevel", "attestationPolicy", "trustAnchors", "allowedAAGUIDs", "deniedAAGUIDs", "allowSHA1",
        "metadataBLOB", "metadataRoots",
    ]

    /// `rpID` → `LATCHKEY_RP_ID`, `appleAppIDs` → `LATCHKEY_APPLE_APP_IDS`.
    static func environmentName(of key: String) -> String {
        var name = ""
        var previousWasUpper = false
        for character in key {
            if character.isUppercase, !name.isEmpty, !previousWasUpper { name += "_" }
            previousWasUpper = character.isUppercase
            name += character.uppercased()
        }
        return "LATCHKEY_" + name
    }

    /// Loads the file (`LATCHKEY_CONFIG`, else `defaultFile` if it exists), applies environment
    /// overrides and validates the result.
    public static func load(environment: [String: String], defaultFile: String = "Config/latchkey.json") throws -> LatchkeyConfiguration {
        var sources = ConfigurationSources()
        if let file = environment["LATCHKEY_CONFIG"] {
            try sources.readFile(file, required: true)
        } else {
            try sources.readFile(defaultFile, required: false)
        }
        for key in keys {
            if let value = environment[environmentName(of: key)] {
                sources.values[key] = (.environment(value), environmentName(of: key))
            }
        }
        var configuration = LatchkeyConfiguration()
        try configuration.apply(sources)
        try configuration.validate()
        return configuration
    }

    private mutating func apply(_ sources: ConfigurationSources) throws {
        if let value = try sources.string("host") { host = value }
        if let value = try sources.integer("port") { port = value }
        if let value = try sources.string("rpID") { rpID = value }
        if let value = try sources.string("rpName") { rpName = value }
        if let value = try sources.list("origins") {
            origins = value
        } else {
            origins = [rpID == "localhost" ? "http://localhost:\(port)" : "https://\(rpID)"]
        }
        if let value = try sources.string("database") { database = value }
        if let value = try sources.list("appleAppIDs") { appleAppIDs = value }
        if let value = try sources.list("appleAppLinks") { appleAppLinks = value }
        if let value = try sources.boolean("conformanceMode") { conformanceMode = value }
        if let value = try sources.integer("challengeTimeout") { challengeTimeout = value }
        if let value = try sources.integer("sessionTimeout") { sessionTimeout = value }
        if let value = try sources.string("publicDirectory") { publicDirectory = value }
        if let value = try sources.boolean("allowCrossOrigin") { allowCrossOrigin = value }
        if let value = try sources.list("topOrigins") { topOrigins = value }
        if let value = try sources.string("logLevel") { logLevel = value }
        if let value = try sources.string("attestationPolicy") {
            guard let mode = AttestationPolicy.Mode(rawValue: value) else {
                throw ConfigurationError("\(sources.origin(of: "attestationPolicy")): \"\(value)\" is not one of \(AttestationPolicy.Mode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            attestationPolicy = mode
        }
        if let value = try sources.string("trustAnchors") { trustAnchors = value }
        if let value = try sources.list("allowedAAGUIDs") { allowedAAGUIDs = value }
        if let value = try sources.list("deniedAAGUIDs") { deniedAAGUIDs = value }
        if let value = try sources.boolean("allowSHA1") { allowSHA1 = value }
        if let value = try sources.string("metadataBLOB") { metadataBLOB = value }
        if let value = try sources.string("metadataRoots") { metadataRoots = value }
    }

    /// Checks values against each other and against what WebAuthn allows.
    func validate() throws {
        func fail(_ key: String, _ problem: String) -> ConfigurationError {
            ConfigurationError("\(key) (\(Self.environmentName(of: key))): \(problem)")
        }
        guard (1...65_535).contains(port) else { throw fail("port", "\(port) is not a port number (1-65535)") }
        guard !host.isEmpty else { throw fail("host", "must not be empty") }
        guard !rpID.isEmpty, rpID == rpID.lowercased(), !rpID.contains("/"), !rpID.contains(":") else {
            throw fail("rpID", "\"\(rpID)\" is not a lowercase domain name (no scheme, port or path)")
        }
        guard !rpName.isEmpty else { throw fail("rpName", "must not be empty") }
        guard !origins.isEmpty else { throw fail("origins", "at least one origin is required") }
        for origin in origins where !origin.hasPrefix("android:apk-key-hash:") {
            guard let url = URL(string: origin), let scheme = url.scheme, ["http", "https"].contains(scheme),
                  let host = url.host, url.path.isEmpty, url.query == nil, url.fragment == nil else {
                throw fail("origins", "\"\(origin)\" is not an origin like https://example.com[:port]")
            }
            // §5.1.3: the RP ID must be the origin's host or a registrable suffix of it.
            guard host == rpID || host.hasSuffix("." + rpID) else {
                throw fail("origins", "the host of \"\(origin)\" is not \(rpID) or a subdomain of it, so passkeys for RP ID \(rpID) cannot be used there")
            }
            guard scheme == "https" || host == "localhost" || host.hasSuffix(".localhost") else {
                throw fail("origins", "\"\(origin)\" must use https (plain http is only allowed for localhost)")
            }
        }
        for appID in appleAppIDs + appleAppLinks {
            let parts = appID.split(separator: ".", maxSplits: 1)
            guard parts.count == 2, parts[0].count == 10, parts[0].allSatisfy({ $0.isLetter || $0.isNumber }) else {
                throw fail(appleAppIDs.contains(appID) ? "appleAppIDs" : "appleAppLinks", "\"\(appID)\" is not TEAMID.bundle.id with a 10-character team ID")
            }
        }
        guard (1...3_600).contains(challengeTimeout) else { throw fail("challengeTimeout", "\(challengeTimeout) is not between 1 and 3600 seconds") }
        guard (60...31_536_000).contains(sessionTimeout) else { throw fail("sessionTimeout", "\(sessionTimeout) is not between 60 seconds and one year") }
        guard !database.isEmpty else { throw fail("database", "must not be empty") }
        for (key, list) in [("allowedAAGUIDs", allowedAAGUIDs), ("deniedAAGUIDs", deniedAAGUIDs)] {
            if let bad = list.first(where: { AAGUID.bytes($0) == nil }) {
                throw fail(key, "\"\(bad)\" is not an AAGUID (32 hexadecimal digits, dashes optional)")
            }
        }
        let levels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
        guard levels.contains(logLevel) else { throw fail("logLevel", "\"\(logLevel)\" is not one of \(levels.joined(separator: ", "))") }
    }
}

/// Raw values by key, each remembering where it came from so errors can name it.
struct ConfigurationSources {
    enum Raw {
        case file(JSONValue)
        case environment(String)
    }

    var values: [String: (Raw, String)] = [:]

    mutating func readFile(_ path: String, required: Bool) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            if required { throw ConfigurationError("LATCHKEY_CONFIG: configuration file \(path) does not exist") }
            return
        }
        let parsed: JSONValue
        do {
            parsed = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw ConfigurationError("\(path): not valid JSON")
        }
        guard case .object(let object) = parsed else {
            throw ConfigurationError("\(path): the configuration file must hold one JSON object")
        }
        for (key, value) in object where !key.hasPrefix("_") {
            guard LatchkeyConfiguration.keys.contains(key) else {
                throw ConfigurationError("\(path): unknown configuration key \"\(key)\"; known keys: \(LatchkeyConfiguration.keys.joined(separator: ", "))")
            }
            values[key] = (.file(value), "\(key) in \(path)")
        }
    }

    /// Where a key's value came from: its environment variable, or the file.
    func origin(of key: String) -> String { values[key]?.1 ?? key }

    func string(_ key: String) throws -> String? {
        guard let (raw, origin) = values[key] else { return nil }
        switch raw {
        case .environment(let text): return text
        case .file(let value):
            guard let text = value.stringValue else { throw ConfigurationError("\(origin): must be a string") }
            return text
        }
    }

    func integer(_ key: String) throws -> Int? {
        guard let (raw, origin) = values[key] else { return nil }
        switch raw {
        case .environment(let text):
            guard let number = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw ConfigurationError("\(origin): \"\(text)\" is not a whole number")
            }
            return number
        case .file(let value):
            guard case .number(let number) = value, number == number.rounded(), abs(number) < 1e9 else {
                throw ConfigurationError("\(origin): must be a whole number")
            }
            return Int(number)
        }
    }

    func boolean(_ key: String) throws -> Bool? {
        guard let (raw, origin) = values[key] else { return nil }
        switch raw {
        case .environment(let text):
            switch text.lowercased() {
            case "true", "1", "yes", "on": return true
            case "false", "0", "no", "off": return false
            default: throw ConfigurationError("\(origin): \"\(text)\" is not true or false")
            }
        case .file(let value):
            guard let flag = value.boolValue else { throw ConfigurationError("\(origin): must be true or false") }
            return flag
        }
    }

    func list(_ key: String) throws -> [String]? {
        guard let (raw, origin) = values[key] else { return nil }
        switch raw {
        case .environment(let text):
            return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        case .file(let value):
            guard case .array(let items) = value else { throw ConfigurationError("\(origin): must be an array of strings") }
            let strings = items.compactMap(\.stringValue)
            guard strings.count == items.count else { throw ConfigurationError("\(origin): must be an array of strings") }
            return strings
        }
    }
}
