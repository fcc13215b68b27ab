/// How a client can reach an authenticator (WebAuthn §5.8.4), as `getTransports()` reports it and
/// allow and exclude lists carry it.
public enum AuthenticatorTransport: String, Codable, Sendable, CaseIterable {
    case usb
    case nfc
    case ble
    case smartCard = "smart-card"
    case hybrid
    case `internal`

    /// The known transports among `reported`, each once, in order; anything else is dropped.
    public static func known(_ reported: [String]) -> [AuthenticatorTransport] {
        var seen = Set<AuthenticatorTransport>()
        return reported.compactMap(AuthenticatorTransport.init(rawValue:)).filter { seen.insert($0).inserted }
    }
}
