import Foundation
import LatchkeyService

/// Refuses, before any route or file is looked for, a path that could never name a file of the page
/// but would confuse the file system: one that is not percent-encoded UTF-8, holds a control
/// character once decoded (a NUL would cut the name the file is opened by short of the name its
/// type is guessed from), or has a `.` or `..` segment. Each is a 400 saying which.
enum StaticFilePathGuard {
    /// Runs on every request, so a path without escapes or dots (every ceremony's) costs one pass over its bytes.
    static func check(_ path: String) throws(APIError) {
        var decoded = path
        if path.utf8.contains(UInt8(ascii: "%")) {
            guard let text = path.removingPercentEncoding else { throw APIError.badRequest("the path is not percent-encoded UTF-8") }
            decoded = text
        }
        if let control = decoded.unicodeScalars.first(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            throw APIError.badRequest("the path holds the control character \(PrintableText.codePoint(control))")
        }
        if PathSegments.dotSegment(in: decoded) != nil {
            throw APIError.badRequest("the path has a \".\" or \"..\" segment")
        }
    }

}
