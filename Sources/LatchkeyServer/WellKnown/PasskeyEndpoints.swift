/// `/.well-known/passkey-endpoints` (W3C "A Well-Known URL for Relying Party Passkey Endpoints"):
/// where password managers send people to create (`enroll`) or manage (`manage`) their passkeys.
struct PasskeyEndpoints: Encodable, Sendable {
    var enroll: String?
    var manage: String?

    /// `nil` when neither URL is configured: the file is then not served.
    init?(enroll: String, manage: String) {
        guard !enroll.isEmpty || !manage.isEmpty else { return nil }
        self.enroll = enroll.isEmpty ? nil : enroll
        self.manage = manage.isEmpty ? nil : manage
    }
}
