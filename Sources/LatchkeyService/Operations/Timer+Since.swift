import CoreMetrics

extension CoreMetrics.Timer {
    /// Records the time elapsed since `start`.
    package func record(since start: ContinuousClock.Instant) {
        let elapsed = (ContinuousClock.now - start).components
        recordNanoseconds(elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000)
    }
}
