import LatchkeyConfiguration
import LatchkeyServer

/// The settings `latchkey serve --help` lists: each variable, its key in the configuration file,
/// its default and the first sentence of its documentation.
enum ConfigurationHelp {
    static var text: String {
        let defaults = LatchkeyConfiguration()
        var lines = [
            "Settings come from LATCHKEY_* environment variables, then the JSON file named by LATCHKEY_CONFIG (else Config/latchkey.json in the home), then these defaults. `latchkey check-config` shows the effective values.",
            "Relative paths are resolved against the home: LATCHKEY_HOME, else the nearest folder at or above the executable's that holds Config/latchkey.json, else the current directory.",
            "",
        ]
        for key in LatchkeyConfiguration.keys {
            let value = key.displayValue(in: defaults)
            let shownDefault = key.defaultDescription ?? (value.isEmpty ? "none" : value)
            lines.append("\(key.environmentName) (\(key.name), default: \(shownDefault))")
            lines.append("    " + firstSentence(of: key.documentation))
        }
        return lines.joined(separator: "\n")
    }

    private static func firstSentence(of text: String) -> String {
        guard let end = text.range(of: ". ") else { return text }
        return String(text[..<end.lowerBound]) + "."
    }
}
