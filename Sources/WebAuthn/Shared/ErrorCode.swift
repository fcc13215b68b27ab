/// The code of an error of `Domain`: a name callers match (`.malformedCBOR`), printed as itself. One type for the
/// codes of every error of the package (``WebAuthnError``, the store's, the authenticator's); each domain declares
/// its codes in an extension where `Domain` is its error. New codes may be added; match the ones you care about.
public struct ErrorCode<Domain>: Hashable, Sendable, CustomStringConvertible {
    private let name: String

    package init(_ name: String) {
        self.name = name
    }

    public var description: String { name }
}
