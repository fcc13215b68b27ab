import Foundation

/// A calendar date as FIDO metadata writes it (`YYYY-MM-DD`, ISO 8601), at 00:00 UTC.
struct MetadataDate {
    /// Parses exactly `YYYY-MM-DD` with a real month and day; nil otherwise.
    static func parse(_ text: String) -> Date? {
        let characters = Array(text.utf8)
        guard characters.count == 10, characters[4] == UInt8(ascii: "-"), characters[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for character in characters[range] {
                guard character >= UInt8(ascii: "0"), character <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(character - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(daysSince1970(year: year, month: month, day: day)) * 86_400)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 in the proleptic Gregorian calendar (years counted from March, so the
    /// leap day falls at the end of a counting year).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let countingYear = month <= 2 ? year - 1 : year
        let era = (countingYear >= 0 ? countingYear : countingYear - 399) / 400
        let yearOfEra = countingYear - era * 400
        let monthFromMarch = (month + 9) % 12
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
