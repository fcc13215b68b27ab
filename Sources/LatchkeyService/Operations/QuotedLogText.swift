import Logging

/// A name a person chose (a username, a passkey's name), logged quoted and escaped as a Swift string literal in
/// text lines (`user="alice"`, a newline as `\n`, so no name can forge a line), and as itself in JSON lines.
package struct QuotedLogText: CustomStringConvertible, Sendable {
    package let text: String

    package init(text: String) {
        self.text = text
    }

    package var description: String { text.debugDescription }
}

extension Logger.MetadataValue {
    /// `text` as ``QuotedLogText``.
    package static func quoted(_ text: String) -> Logger.MetadataValue { .stringConvertible(QuotedLogText(text: text)) }
}
