import Testing

@testable import LatchkeyService

/// The log tells when a receiver starts failing (at most once a minute) and when it recovers, not every attempt.
struct ReceiverFailuresTests {
    @Test func aRunOfFailuresIsToldOnceAndItsEndOnlyWhenItsStartWas() {
        let failures = ReceiverFailures()
        let start = ContinuousClock.now
        func at(_ seconds: Int) -> ContinuousClock.Instant { start.advanced(by: .seconds(seconds)) }
        #expect(failures.record("a", failed: false, now: at(0)) == nil, "a success of a healthy receiver")
        #expect(failures.record("a", failed: true, now: at(1)) == .startedFailing)
        #expect(failures.record("a", failed: true, now: at(2)) == nil, "the same run")
        #expect(failures.record("b", failed: true, now: at(2)) == .startedFailing, "each receiver on its own")
        #expect(failures.record("a", failed: false, now: at(3)) == .recovered)
        // Failing again within a minute of the last warning: neither its start nor its end is told.
        #expect(failures.record("a", failed: true, now: at(30)) == nil)
        #expect(failures.record("a", failed: false, now: at(31)) == nil)
        #expect(failures.record("a", failed: true, now: at(62)) == .startedFailing)
        #expect(failures.record("a", failed: false, now: at(63)) == .recovered)
    }
}
