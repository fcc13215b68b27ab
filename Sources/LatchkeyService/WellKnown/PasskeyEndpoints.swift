/// `/.well-known/passkey-endpoints` (W3C "A Well-Known URL for Relying Party Passkey Endpoints"):
/// where password managers send people to create (`enroll`) or manage (`manage`) their passkeys.
package struct PasskeyEndpoints: Encodable, Sendable {
    package var enroll: String?
    package var manage: String?

    /// `nil` when neither URL is configured: the file is then not served.
    package init?(enroll: String, manage: String) {
        guard !enroll.isEmpty || !manage.isEmpty else { return nil }
        self.enroll = enroll.isEmpty ? nil : enroll
        self.manage = manage.isEmpty ? nil : manage
    }
}
