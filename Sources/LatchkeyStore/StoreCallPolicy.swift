/// How a store makes each of its calls: whether a call the database reports ``StoreError/Code/busy``
/// (it did nothing: another process holds SQLite's lock, or PostgreSQL ended a deadlock by rolling
/// it back) is made again, and whether each call is timed. Both backends apply it where every call
/// enters the database, so a new store method gets it without a line of its own.
///
/// The server's store retries for its deadline and times every call
/// (``LatchkeyStore/applying(_:)``); a store opened directly is ``direct``.
public struct StoreCallPolicy: Sendable {
    /// How long a busy call is made again, after pauses that hold no thread, before it fails as
    /// ``StoreError/Code/unavailable``; nil: a busy call fails as `busy` at once.
    public var busyRetry: Duration?
    /// Told of each call once it ends, with the store method's `#function` (``operation(_:)`` names
    /// it, once per method rather than once per call) and the instant it started; nil: calls are not timed.
    public var timing: (@Sendable (_ function: String, _ started: ContinuousClock.Instant) -> Void)?

    public init(
        busyRetry: Duration? = nil, timing: (@Sendable (_ function: String, _ started: ContinuousClock.Instant) -> Void)? = nil
    ) {
        self.busyRetry = busyRetry
        self.timing = timing
    }

    /// Every call made once and not timed.
    public static let direct = StoreCallPolicy()

    /// The pauses between attempts at a busy call: short at first, then at most the last.
    public static let pauses: [Duration] = [.milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50)]

    /// Makes the call `body` under this policy. `function` is the store method's `#function`
    /// (`user(named:)`), which names the operation timed.
    public func call<T>(_ function: String, _ body: () async throws -> T) async throws -> T {
        if busyRetry == nil && timing == nil { return try await body() }
        let start = ContinuousClock.now
        defer { timing?(function, start) }
        var attempt = 0
        while true {
            do {
                return try await body()
            } catch let error as StoreError where error.code == .busy {
                guard let busyRetry else { throw error }
                guard ContinuousClock.now - start < busyRetry else {
                    throw StoreError(.unavailable, "\(error.message) (still busy after \(busyRetry))")
                }
                try await Task.sleep(for: Self.pauses[min(attempt, Self.pauses.count - 1)])
                attempt += 1
            }
        }
    }

    /// The operation a `#function` names: its base name, without the argument labels (`user` for
    /// `user(named:)`).
    public static func operation(_ function: String) -> String {
        guard let parenthesis = function.firstIndex(of: "(") else { return function }
        return String(function[..<parenthesis])
    }
}
