/// How `clientDataJSON.crossOrigin` and `topOrigin` are judged (WebAuthn §7.1 step 10, §7.2 step 14).
public enum CrossOriginPolicy: Sendable, Equatable {
    /// Refuse any ceremony run inside a cross-origin iframe (the default).
    case forbid
    /// Accept cross-origin ceremonies whose `topOrigin`, when present, is one of these.
    case allow(topOrigins: Set<String>)
}
