/// `/.well-known/webauthn`: the other origins allowed to use this RP ID (WebAuthn Level 3
/// related origin requests). A browser on one of them fetches this file from the RP ID before it
/// runs a ceremony for it; the server accepts those origins in client data.
package struct RelatedOrigins: Encodable, Sendable {
    package var origins: [String]

    /// `nil` when none is configured: the file is then not served.
    package init?(origins: [String]) {
        guard !origins.isEmpty else { return nil }
        self.origins = origins
    }
}
