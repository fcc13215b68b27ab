import Foundation
import Testing

@testable import LatchkeyService

/// The migration format's times: milliseconds rounded to the nearest, so what a store gives back a hair under what it
/// was given comes out the same; and an import reads what an export writes.
@Suite("Migration format")
struct MigrationFormatTests {
    @Test(arguments: [
        (1_796_000_000.0165, "2026-11-30T00:53:20.017Z"), (1_796_000_000.016_999, "2026-11-30T00:53:20.017Z"),
        (1_796_000_000.9996, "2026-11-30T00:53:21.000Z"), (1_796_000_000.0, "2026-11-30T00:53:20.000Z"),
        (-0.25, "1969-12-31T23:59:59.750Z"),
    ])
    func timesRoundToTheNearestMillisecond(seconds: Double, written: String) {
        #expect(MigratedAccount.time(Date(timeIntervalSince1970: seconds)) == written)
        #expect(RFC3339.date(written).map(MigratedAccount.time) == written, "read back, the same text")
    }
}
