/// The `getTransports()` values a client reports with a new credential, kept for allow and exclude
/// lists.
enum CredentialTransports {
    /// The transports WebAuthn defines; anything else a client reports is dropped.
    static let known: Set<String> = ["usb", "nfc", "ble", "smart-card", "hybrid", "internal"]

    /// The known transports among `reported`, each once, in order.
    static func filter(_ reported: [String]) -> [String] {
        var seen = Set<String>()
        return reported.filter { known.contains($0) && seen.insert($0).inserted }
    }
}
