/// The one rule for `.` and `..` segments, which no path may carry and so no username may hold (``UserNames``).
package enum PathSegments {
    /// The `.` or `..` that stands as a whole `/`-separated segment of `text`, or nil. A text without a dot costs one
    /// pass over its bytes.
    package static func dotSegment(in text: String) -> String? {
        guard text.utf8.contains(UInt8(ascii: ".")) else { return nil }
        return text.split(separator: "/").first { $0 == "." || $0 == ".." }.map(String.init)
    }
}
