import Foundation

/// Timestamps on the wire and in JSON log lines: RFC 3339 in UTC with milliseconds,
/// `2026-11-23T10:15:30.123Z`.
package enum RFC3339 {
    package static func string(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// The time an RFC 3339 `date-time` names (`2026-11-27T10:00:00Z`, `...T10:00:00.5+02:00`),
    /// or nil when the text is not one or names no such time: February 30th, hour 24 or minute
    /// 60 are refused, where Foundation's ISO 8601 parser rolls them over into the next day or
    /// hour. A leap second (`:60`) is refused too: `Date` has no place for it.
    package static func date(_ text: String) -> Date? {
        // YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM), `T` and `Z` in either case.
        let pattern = /(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:[Zz]|([+-])(\d{2}):(\d{2}))/
        guard let match = text.wholeMatch(of: pattern),
              let year = Int(match.1), let month = Int(match.2), let day = Int(match.3),
              let hour = Int(match.4), let minute = Int(match.5), let second = Int(match.6),
              (1...12).contains(month), (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second)
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        guard let firstOfMonth = calendar.date(from: DateComponents(year: year, month: month)),
              calendar.range(of: .day, in: .month, for: firstOfMonth)?.contains(day) == true,
              let local = calendar.date(from: DateComponents(
                  year: year, month: month, day: day, hour: hour, minute: minute, second: second))
        else { return nil }
        let fraction = match.7.flatMap { Double("0" + $0) } ?? 0
        var offset = 0
        if let sign = match.8, let offsetHours = match.9.flatMap({ Int($0) }), let offsetMinutes = match.10.flatMap({ Int($0) }) {
            guard (0...23).contains(offsetHours), (0...59).contains(offsetMinutes) else { return nil }
            offset = (sign == "-" ? -1 : 1) * (offsetHours * 3600 + offsetMinutes * 60)
        }
        return local.addingTimeInterval(fraction - Double(offset))
    }
}
