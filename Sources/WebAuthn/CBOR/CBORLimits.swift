/// Bounds every CBOR input must respect before libcbor sees it.
public struct CBORLimits: Sendable {
    /// Largest accepted input, in bytes.
    public var maximumInputSize: Int
    /// Deepest accepted nesting of arrays, maps and tags.
    public var maximumDepth: Int

    public init(maximumInputSize: Int = 64 * 1024, maximumDepth: Int = 16) {
        self.maximumInputSize = maximumInputSize
        self.maximumDepth = maximumDepth
    }

    /// The limits WebAuthn inputs are held to: 64 KiB, 16 levels.
    public static let webAuthn = CBORLimits()
}
