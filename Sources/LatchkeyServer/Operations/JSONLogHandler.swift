import Foundation
import Logging

/// A swift-log handler that writes each event as one JSON object on one line of standard error:
/// `time` (RFC 3339, UTC), `level`, `label`, `message`, then the metadata (handler, logger and
/// event metadata, later ones winning) as strings, nested dictionaries and arrays as JSON.
/// Selected with `logFormat: json`.
public struct JSONLogHandler: LogHandler {
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
        FileHandle.standardError.write(Self.line(
            time: Date(), level: event.level, label: label, message: event.message.description, metadata: merged))
    }

    /// One event as a JSON line, newline included.
    static func line(time: Date, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) -> Data {
        var object: [String: Any] = [:]
        for (key, value) in metadata { object[key] = json(value) }
        object["time"] = RFC3339.string(time)
        object["level"] = level.rawValue
        object["label"] = label
        object["message"] = message
        var data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data(#"{"level":"error","message":"a log event could not be encoded"}"#.utf8)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    private static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let string): string
        case .stringConvertible(let convertible): convertible.description
        case .dictionary(let dictionary): dictionary.mapValues(json)
        case .array(let array): array.map(json)
        }
    }
}
