/// How `clientDataJSON.tokenBinding` is judged. Level 3 reserves the member; Level 2 clients still
/// send it, and the FIDO conformance tools test the Level 2 rules.
public enum TokenBindingPolicy: String, Sendable {
    /// Ignore a `tokenBinding` that is not an object; refuse a status other than `present` or
    /// `supported` (the default).
    case lenient
    /// Level 2 as the FIDO conformance tools test it: `tokenBinding` must be an object whose status
    /// is `present`, `supported` or `not-supported`.
    case strict
}
