import LatchkeyStore
import WebAuthn

/// Sign-in options for a username nobody registered that look like a registered user's, so
/// `/assertion/options` does not tell whether a username exists (`hideUnknownUsers`). The decoy
/// credential ID is an HMAC of the username under a secret the store keeps, so the same username
/// gets the same `allowCredentials` every time, from every instance, and no credential matches it.
struct UnknownUserDecoys: Sendable {
    /// The store's name for the HMAC key.
    static let secretName = "unknown-user-decoys"
    /// Credential IDs as long as those of the common platform passkey providers.
    static let credentialIDLength = 32

    let store: any LatchkeyStore

    /// The decoy allow list and user handle for `username`.
    func decoy(for username: String) async throws -> (allowCredentials: [CredentialDescriptor], userHandle: [UInt8]) {
        // Read from the store each time rather than kept in memory: a known username costs two
        // store reads, and so, with this one, does an unknown one.
        let key = try await store.secret(named: Self.secretName)
        let credentialID = try HMAC.sha256(key: key, message: Array("credential\u{0}\(username)".utf8))
        let userHandle = try HMAC.sha256(key: key, message: Array("user\u{0}\(username)".utf8))
            + HMAC.sha256(key: key, message: Array("user2\u{0}\(username)".utf8))
        return (
            [CredentialDescriptor(id: Array(credentialID.prefix(Self.credentialIDLength)), transports: [.hybrid, .internal])],
            userHandle)
    }
}
