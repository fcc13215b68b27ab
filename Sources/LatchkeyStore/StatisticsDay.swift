import Foundation

/// A day in UTC, `YYYY-MM-DD`: the unit the statistics are kept in.
public struct StatisticsDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Days since 1970-01-01.
    public let ordinal: Int

    public init(ordinal: Int) {
        self.ordinal = ordinal
    }

    /// The UTC day `date` falls on.
    public init(_ date: Date) {
        ordinal = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
    }

    /// Reads `YYYY-MM-DD` (a real calendar day); nil otherwise.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year)
        else { return nil }
        ordinal = Self.ordinal(year: year, month: month, day: day)
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        let (year, month, day) = civil
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(year)
        return String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText + "-" + two(month) + "-" + two(day)
    }

    /// Its first instant.
    public var start: Date { Date(timeIntervalSince1970: TimeInterval(ordinal) * 86_400) }

    public func adding(days: Int) -> StatisticsDay { StatisticsDay(ordinal: ordinal + days) }

    public static func < (lhs: StatisticsDay, rhs: StatisticsDay) -> Bool { lhs.ordinal < rhs.ordinal }

    // The proleptic Gregorian calendar in days since 1970, by eras of 400 years.
    private static func ordinal(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private var civil: (year: Int, month: Int, day: Int) {
        let z = ordinal + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
