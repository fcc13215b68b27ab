import Foundation
import LatchkeyConfiguration
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// A swift-log handler that writes each event as one line on standard error, in one `write`:
/// - `text` (the default): swift-log's own `StreamLogHandler` line,
///   `2026-11-27T21:53:29+0000 info latchkey: key=value ... [Module] message`;
/// - `json` (`logFormat: json`): one JSON object with `time` (RFC 3339, UTC), `level`, `label`,
///   `message`, then the metadata as strings, nested dictionaries and arrays as JSON.
///
/// Metadata is formatted when a line is written, not each time it changes (`StreamLogHandler`
/// formats it on every change): every request sets its request ID on its logger, and most
/// requests write no line. Handler, logger and event metadata merge in
/// that order, later ones winning, with the event's error as `error.message` and `error.type`.
public struct LineLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let format: LogFormat

    public init(label: String, format: LogFormat, metadataProvider: Logger.MetadataProvider? = nil) {
        (self.label, self.format, self.metadataProvider) = (label, format, metadataProvider)
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let own = event.metadata { merged.merge(own) { $1 } }
        if let error = event.error {
            merged["error.message"] = "\(error)"
            merged["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        let message = event.message.description
        switch format {
        case .text:
            Self.write(Array(Self.textLine(
                timestamp: Self.localTimestamp(), level: event.level, label: label, metadata: merged, source: event.source,
                message: message).utf8))
        case .json:
            Self.write(Self.jsonLine(time: Date(), level: event.level, label: label, message: message, metadata: merged))
        }
    }

    /// `StreamLogHandler`'s line for one event, newline included.
    static func textLine(
        timestamp: String, level: Logger.Level, label: String, metadata: Logger.Metadata, source: String, message: String
    ) -> String {
        var line = timestamp + " " + level.rawValue + (label.isEmpty ? "" : " ") + label + ":"
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            line += " " + key + "=" + value.description
        }
        return line + " [" + source + "] " + message + "\n"
    }

    /// One event as a JSON line, newline included.
    static func jsonLine(time: Date, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) -> [UInt8] {
        var object: [String: Any] = [:]
        for (key, value) in metadata { object[key] = json(value) }
        object["time"] = RFC3339.string(time)
        object["level"] = level.rawValue
        object["label"] = label
        object["message"] = message
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data(#"{"level":"error","message":"a log event could not be encoded"}"#.utf8)
        return Array(data) + [UInt8(ascii: "\n")]
    }

    private static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let string): string
        // JSON escapes the text itself: a name is its own characters there, not quoted a second time.
        case .stringConvertible(let quoted as QuotedLogText): quoted.text
        case .stringConvertible(let convertible): convertible.description
        case .dictionary(let dictionary): dictionary.mapValues(json)
        case .array(let array): array.map(json)
        }
    }

    /// The local time to the second, as `StreamLogHandler` writes it: `%Y-%m-%dT%H:%M:%S%z`.
    private static func localTimestamp() -> String {
        var now = time(nil)
        var local = tm()
        guard localtime_r(&now, &local) != nil else { return "<unknown>" }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            guard let base = buffer.baseAddress, strftime(base, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &local) > 0 else {
                return "<unknown>"
            }
            return String(cString: base)
        }
    }

    /// Writes the whole line, in one `write` unless the kernel takes less.
    private static func write(_ line: [UInt8]) {
        line.withUnsafeBytes { bytes in
            var rest = bytes
            while !rest.isEmpty, let base = rest.baseAddress {
                let written = Glibc.write(STDERR_FILENO, base, rest.count)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                rest = UnsafeRawBufferPointer(rebasing: rest[written...])
            }
        }
    }
}
