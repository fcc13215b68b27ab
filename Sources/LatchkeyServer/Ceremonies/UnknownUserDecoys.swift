import LatchkeyStore
import Synchronization
import WebAuthn

/// Sign-in options for a username nobody registered that look like a registered user's, so
/// `/assertion/options` does not tell whether a username exists (`hideUnknownUsers`). The decoy
/// credential ID is an HMAC of the username under a secret the store keeps, so the same username
/// gets the same `allowCredentials` every time, from every instance, and no credential matches it.
final class UnknownUserDecoys: Sendable {
    /// The store's name for the HMAC key.
    static let secretName = "unknown-user-decoys"
    /// Credential IDs as long as those of the common platform passkey providers.
    static let credentialIDLength = 32

    let store: any LatchkeyStore
    /// The HMAC key once read: it never changes, and reading it for every unknown username would
    /// make those options cost store round trips a known username's do not (telling them apart by time).
    private let key = Mutex<[UInt8]?>(nil)

    init(store: any LatchkeyStore) {
        self.store = store
    }

    /// The decoy allow list and user handle for `username`.
    func decoy(for username: String) async throws -> (allowCredentials: [CredentialDescriptor], userHandle: [UInt8]) {
        let key = try await self.secret()
        let credentialID = try HMAC.sha256(key: key, message: Array("credential\u{0}\(username)".utf8))
        let userHandle = try HMAC.sha256(key: key, message: Array("user\u{0}\(username)".utf8))
            + HMAC.sha256(key: key, message: Array("user2\u{0}\(username)".utf8))
        return (
            [CredentialDescriptor(id: Array(credentialID.prefix(Self.credentialIDLength)), transports: [.hybrid, .internal])],
            userHandle)
    }

    /// The store's secret, read (made by the first instance that asks) once.
    private func secret() async throws -> [UInt8] {
        if let key = key.withLock({ $0 }) { return key }
        let read = try await store.secret(named: Self.secretName)
        key.withLock { $0 = read }
        return read
    }
}
