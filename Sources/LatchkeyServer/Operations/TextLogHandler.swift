import Logging

#if canImport(Glibc)
import Glibc
#endif

/// A swift-log handler that writes swift-log's own text format to standard error, one line per
/// event: `2026-11-27T21:53:29+0000 info latchkey: key=value ... [Module] message`.
///
/// The line is `StreamLogHandler`'s, but its metadata is formatted when a line is written, not
/// each time it changes: every request sets two keys on its logger (Hummingbird's request ID and
/// ours) and most requests write no line. Selected with `logFormat: text`, the default.
public struct TextLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String

    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.metadataProvider = metadataProvider
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
        Self.write(Self.line(
            timestamp: Self.timestamp(), level: event.level, label: label, metadata: merged, source: event.source,
            message: event.message.description))
    }

    /// One event as a line, newline included.
    static func line(
        timestamp: String, level: Logger.Level, label: String, metadata: Logger.Metadata, source: String, message: String
    ) -> String {
        var line = timestamp + " " + level.rawValue + (label.isEmpty ? "" : " ") + label + ":"
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            line += " " + key + "=" + value.description
        }
        return line + " [" + source + "] " + message + "\n"
    }

    /// The local time to the second, as `StreamLogHandler` writes it: `%Y-%m-%dT%H:%M:%S%z`.
    private static func timestamp() -> String {
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

    /// Writes the whole line with as few `write` calls as the kernel allows (one, for a line).
    private static func write(_ line: String) {
        var line = line
        line.withUTF8 { bytes in
            var rest = UnsafeRawBufferPointer(bytes)
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
