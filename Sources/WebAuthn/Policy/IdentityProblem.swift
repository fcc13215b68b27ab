/// Why a text is not a valid identity of a relying party or of one of its apps: an RP ID
/// (``RelyingPartyID``), an Apple app ID (``AppleAppID``) or an Android app (``AndroidApp``).
public struct IdentityProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// The problem in words, quoting the refused text.
    public let message: String

    public var description: String { message }

    init(_ message: String) {
        self.message = message
    }
}
