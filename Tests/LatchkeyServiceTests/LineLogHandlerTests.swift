import Foundation
import Logging
import Synchronization
import Testing

@testable import LatchkeyService

/// `LineLogHandler`'s text lines are the lines swift-log's `StreamLogHandler` writes.
@Suite struct LineLogHandlerTests {
    /// A stream that keeps what `StreamLogHandler` writes.
    final class Captured: TextOutputStream, @unchecked Sendable {
        let text = Mutex("")
        func write(_ string: String) { text.withLock { $0 += string } }
    }

    @Test(arguments: [
        ("latchkey", [:] as Logger.Metadata, "starting"),
        ("latchkey", ["requestID": "00ff", "hb.request.id": "7", "user": "\"ann\""], "signed in"),
        ("", ["nested": ["b": "2", "a": ["x", "y"]], "n": .stringConvertible(42)], "a message: with = signs"),
    ] as [(String, Logger.Metadata, String)])
    func linesAreStreamLogHandlersLines(label: String, metadata: Logger.Metadata, message: String) throws {
        let captured = Captured()
        var stream = StreamLogHandler(label: label, stream: captured, metadataProvider: nil)
        stream.metadata = ["base": "1"]
        stream.log(event: LogEvent(
            level: .warning, message: "\(message)", metadata: metadata, source: "LatchkeyServer", file: #file, function: #function,
            line: #line))
        let expected = captured.text.withLock { $0 }
        var merged: Logger.Metadata = ["base": "1"]
        merged.merge(metadata) { $1 }
        let line = LineLogHandler.textLine(
            timestamp: "TIME", level: .warning, label: label, metadata: merged, source: "LatchkeyServer", message: message)
        // The same line after the timestamp, which each formats from its own clock.
        let timestamp = try #require(expected.split(separator: " ", maxSplits: 1).first)
        #expect(timestamp.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}/) != nil)
        #expect(line.dropFirst("TIME".count) == expected.dropFirst(timestamp.count))
    }

    /// A username is quoted and escaped once in a text line, and is its own characters in a JSON line (it was
    /// `"user":"\"alice\""`, quoted twice).
    @Test func quotedNamesAreQuotedOnceInTextAndNotAtAllInJSON() throws {
        let metadata: Logger.Metadata = ["user": .quoted("al\"ice\nforged=1")]
        let text = LineLogHandler.textLine(timestamp: "TIME", level: .notice, label: "latchkey", metadata: metadata, source: "S", message: "m")
        #expect(text == #"TIME notice latchkey: user="al\"ice\nforged=1" [S] m"# + "\n")
        let json = LineLogHandler.jsonLine(time: Date(timeIntervalSince1970: 0), level: .notice, label: "latchkey", message: "m", metadata: metadata)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        #expect(object["user"] as? String == "al\"ice\nforged=1")
    }
}
