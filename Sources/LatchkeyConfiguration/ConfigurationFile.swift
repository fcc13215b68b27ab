import Configuration
import Foundation
import LatchkeyJSON
import WebAuthn

/// The JSON configuration file, decoded once into values and checked strictly (known keys, JSON types, no key given
/// twice, which takes a second, strict reading of its bytes): its good members become swift-configuration values,
/// its bad ones problems.
struct ConfigurationFile {
    let path: String
    /// The members of the right type, by key.
    var values: [AbsoluteConfigKey: ConfigValue] = [:]
    /// By key, the problem of a member whose value has the wrong type.
    var problems: [String: String] = [:]
    /// A problem per unknown key, sorted.
    var unknownKeys: [String] = []

    /// Nil when the file does not exist and is not required.
    init?(_ path: String, required: Bool) throws(ConfigurationError) {
        guard FileManager.default.fileExists(atPath: path) else {
            if required { throw ConfigurationError("\(ConfigurationLoader.fileVariable): configuration file \(path) does not exist") }
            return nil
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("\(path): cannot read the configuration file")
        }
        guard let parsed = try? JSONDecoder().decode(JSONValue.self, from: data) else {
            throw ConfigurationError("\(path): not valid JSON" + (Self.syntaxErrorPlace(in: data).map { " (\($0))" } ?? ""))
        }
        guard case .object(let members) = parsed else {
            throw ConfigurationError("\(path): the configuration file must hold one JSON object")
        }
        // JSON readers differ on which of two copies counts; a reviewer's may not be this one.
        if case .repeatedMember(let name)? = Self.strictProblem(in: data) {
            throw ConfigurationError("\(path): \(name.debugDescription) is given twice in one object; keep one")
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
            guard let content = key.kind.content(value) else {
                problems[name] = "\(name) (file \(path)): \(key.kind.expectation)"
                continue
            }
            values[AbsoluteConfigKey([name])] = ConfigValue(content, isSecret: key.isSecret)
        }
    }

    /// What ``StrictJSON`` refuses in `data`, if anything: Foundation's decoder keeps one copy of a key given twice
    /// without saying so.
    static func strictProblem(in data: Data) -> StrictJSONProblem? {
        data.withUnsafeBytes { bytes in
            do throws(StrictJSONProblem) {
                try StrictJSON.check(bytes)
                return nil
            } catch {
                return error
            }
        }
    }

    /// Where JSON text stops being JSON, as `line L, column C: what` (from 1), when Foundation's parser says at which
    /// character. Only a file that is not JSON is parsed again, for this.
    static func syntaxErrorPlace(in data: Data) -> String? {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
            return nil
        } catch {
            guard let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String,
                  let range = detail.range(of: #"character \d+"#, options: .regularExpression),
                  let offset = Int(detail[range].dropFirst("character ".count))
            else { return nil }
            let before = data.prefix(offset)
            let line = before.count { $0 == UInt8(ascii: "\n") } + 1
            // One column per character, not per UTF-8 continuation byte.
            let column = before.reversed().prefix { $0 != UInt8(ascii: "\n") }.count { $0 & 0xC0 != 0x80 } + 1
            return "line \(line), column \(column): " + (detail.components(separatedBy: " around").first ?? detail).lowercased()
        }
    }
}
