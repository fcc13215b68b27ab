import Synchronization

/// Whether each receiver's last attempt failed, for the log: a receiver that starts failing is told at
/// most once a minute (one coming back under load may fail and succeed by turns), and its recovery
/// only after its failing was told.
package final class ReceiverFailures: Sendable {
    package enum Change: Equatable { case startedFailing, recovered }

    private struct State {
        package var failing = false
        package var toldFailing = false
        package var toldAt: ContinuousClock.Instant?
    }

    private let states = Mutex<[String: State]>([:])

    package init() {}
    package static let quietInterval: Duration = .seconds(60)

    /// Records an attempt's outcome; what of it to tell, if anything.
    package func record(_ receiver: String, failed: Bool, now: ContinuousClock.Instant = .now) -> Change? {
        states.withLock { states in
            var state = states[receiver, default: State()]
            defer { states[receiver] = state }
            guard failed != state.failing else { return nil }
            state.failing = failed
            guard failed else { return state.toldFailing ? .recovered : nil }
            state.toldFailing = state.toldAt.map { now - $0 >= Self.quietInterval } ?? true
            if state.toldFailing { state.toldAt = now }
            return state.toldFailing ? .startedFailing : nil
        }
    }
}
