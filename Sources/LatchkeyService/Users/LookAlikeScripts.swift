/// Latin, Greek and Cyrillic: the scripts whose letters pass for one another (Latin `a`, Cyrillic `а`;
/// Latin `o`, Greek `ο`, Cyrillic `о`). A word that mixes them, as `pаypal` with a Cyrillic `а` does, is
/// the usual look-alike of another name, while a word in one of them, or words in different ones
/// (`иван@example.com`), is what people write. Other scripts are not told apart here.
package enum LookAlikeScripts: String {
    case latin = "Latin", greek = "Greek", cyrillic = "Cyrillic"

    /// The script of a letter, or nil for a character of none of the three (digits, punctuation, marks,
    /// other scripts).
    package init?(of scalar: Unicode.Scalar) {
        guard scalar.properties.isAlphabetic else { return nil }
        switch scalar.value {
        // The Greek and Cyrillic letters among the phonetic extensions first.
        case 0x1D26...0x1D2A, 0x1D5D...0x1D61, 0x1D66...0x1D6A:
            self = .greek
        case 0x1D2B:
            self = .cyrillic
        case 0x41...0x5A, 0x61...0x7A, 0xAA, 0xBA, 0xC0...0xD6, 0xD8...0xF6, 0xF8...0x2AF, 0x1D00...0x1D7F,
             0x1E00...0x1EFF, 0x2C60...0x2C7F, 0xA720...0xA7FF, 0xAB30...0xAB6F, 0xFB00...0xFB06:
            self = .latin
        case 0x370...0x3FF, 0x1F00...0x1FFF:
            self = .greek
        case 0x400...0x52F, 0x1C80...0x1C8F, 0x2DE0...0x2DFF, 0xA640...0xA69F:
            self = .cyrillic
        default:
            return nil
        }
    }

    /// The first word of `text` (a run of letters, with the marks on them) whose letters come from two of the
    /// scripts: the two, and the first letter of the second; nil when every word keeps to one.
    package static func mixture(in text: String) -> (first: Self, second: Self, letter: Unicode.Scalar)? {
        var wordScript: Self?
        for scalar in text.unicodeScalars {
            if let script = Self(of: scalar) {
                if let first = wordScript, first != script { return (first, script, scalar) }
                wordScript = script
                continue
            }
            switch scalar.properties.generalCategory {
            // A letter of another script, or a mark on the letter before it, does not end the word.
            case .lowercaseLetter, .uppercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                 .nonspacingMark, .spacingMark, .enclosingMark:
                continue
            default:
                wordScript = nil
            }
        }
        return nil
    }
}
