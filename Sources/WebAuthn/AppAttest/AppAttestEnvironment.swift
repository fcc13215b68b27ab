/// Which App Attest environment a key was made in, told by its AAGUID.
public enum AppAttestEnvironment: String, Sendable, CaseIterable {
    /// Apps signed for development: AAGUID `appattestdevelop`.
    case development
    /// Apps from the App Store, TestFlight or enterprise distribution: `appattest` and seven zero bytes.
    case production

    /// The AAGUID Apple writes for this environment.
    public var aaguid: [UInt8] {
        switch self {
        case .development: Array("appattestdevelop".utf8)
        case .production: Array("appattest".utf8) + [UInt8](repeating: 0, count: 7)
        }
    }

    /// The environment an AAGUID names, if any.
    public init?(aaguid: [UInt8]) {
        guard let environment = Self.allCases.first(where: { $0.aaguid == aaguid }) else { return nil }
        self = environment
    }
}
