import Foundation
import Testing

@testable import LatchkeyService

/// `RFC3339.date` reads real times and refuses the ones that do not exist.
@Suite struct RFC3339Tests {
    @Test(arguments: [
        ("2026-11-27T10:00:00Z", 1_795_773_600.0),
        ("2026-11-27t10:00:00z", 1_795_773_600.0),
        ("2026-11-27T12:30:00+02:30", 1_795_773_600.0),
        ("2026-11-27T05:00:00-05:00", 1_795_773_600.0),
        ("2026-11-27T10:00:00.25Z", 1_795_773_600.25),
        ("2024-02-29T00:00:00Z", 1_709_164_800.0),
        ("2026-12-31T23:59:59Z", 1_798_761_599.0),
    ])
    func realTimesAreRead(text: String, seconds: Double) throws {
        let date = try #require(RFC3339.date(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.001, "\(text): \(date.timeIntervalSince1970)")
    }

    @Test(arguments: [
        "2026-02-29T10:00:00Z", "2026-02-30T10:00:00Z", "2026-04-31T10:00:00Z", "2026-13-01T10:00:00Z",
        "2026-00-10T10:00:00Z", "2026-11-00T10:00:00Z", "2026-11-27T24:00:00Z", "2026-11-27T10:60:00Z",
        "2026-11-27T10:00:60Z", "2026-11-27T10:00:00+24:00", "2026-11-27T10:00:00", "2026-11-27 10:00:00Z",
        "yesterday", "", "2026-11-27T10:00:00Z ", "2026-11-27T10:00:00.Z",
    ])
    func impossibleOrMalformedTimesAreRefused(text: String) {
        #expect(RFC3339.date(text) == nil, "\(text)")
    }
}
