/// How a relying party knows that the challenge a client answered is the one it issued for this ceremony
/// (§7.1 step 8, §7.2 step 12).
public enum IssuedChallenge: Sendable, Equatable {
    /// The challenge issued for this ceremony: the client data's must be byte for byte this one.
    case expected([UInt8])
    /// The relying party found this ceremony by the challenge the client data carries (stored by its hash,
    /// taken once): the step is done, and comparing the challenge with itself could not fail.
    case foundByTheAnswer
}
