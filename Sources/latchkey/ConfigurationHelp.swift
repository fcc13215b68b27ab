import LatchkeyConfiguration
import LatchkeyService

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
            let heading = wrapped("\(key.environmentName) (\(key.name), default: \(shownDefault))", width: textWidth + 4)
            lines += heading.prefix(1) + heading.dropFirst().map { "    " + $0 }
            lines += wrapped(firstSentence(of: key.documentation), width: textWidth).map { "    " + $0 }
        }
        return lines.joined(separator: "\n")
    }

    /// The longest line of a setting's sentence: with its indent and the help's own, it fits 80 columns, so the help
    /// never wraps it again (which lost the indent of every line after the first).
    static let textWidth = 72

    /// `text` broken at spaces into lines of at most `width` characters (a longer word stands alone).
    static func wrapped(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        return line.isEmpty ? lines : lines + [line]
    }

    /// Up to the first ". " that ends a sentence: one the next sentence starts after with a capital letter, and
    /// not the one of "e.g." or "i.e." (metricsAddress's sentence was cut at "e.g.").
    static func firstSentence(of text: String) -> String {
        var searched = text.startIndex
        while let end = text.range(of: ". ", range: searched..<text.endIndex) {
            let before = text[..<end.lowerBound]
            let next = text[end.upperBound...].first
            if next?.isUppercase == true, !before.hasSuffix("e.g"), !before.hasSuffix("i.e") {
                return String(before) + "."
            }
            searched = end.upperBound
        }
        return text
    }
}
