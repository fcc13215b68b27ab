extension LatchkeyConfiguration {
    /// The HTTP layer's policy: ``ServerPolicy/conformance`` in conformance mode, else ``ServerPolicy/standard``.
    public var serverPolicy: ServerPolicy { conformanceMode ? .conformance : .standard }
}
