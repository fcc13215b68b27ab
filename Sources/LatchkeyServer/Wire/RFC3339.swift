import Foundation

/// Timestamps on the wire and in JSON log lines: RFC 3339 in UTC with milliseconds,
/// `2026-11-23T10:15:30.123Z`.
enum RFC3339 {
    static func string(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
