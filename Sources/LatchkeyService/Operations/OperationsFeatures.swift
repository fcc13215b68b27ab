import LatchkeyConfiguration

/// Whether the operations features run: request IDs (`X-Request-ID` and the log lines' `requestID`),
/// request and ceremony metrics, and the timing of every store call. Always ``on`` in service;
/// ``off`` exists to measure what they cost beside the same build with them on.
public enum OperationsFeatures: Sendable {
    case on
    case off

    /// The variable that turns them off for a benchmark run (`1`); read by the executable only.
    public static let benchmarkVariable = ConfigurationLoader.benchmarkVariable
}
