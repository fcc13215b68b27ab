import Foundation
import LatchkeyStore
import WebAuthn

/// One account in the migration format (MIGRATING.md, `docs/migration-account.schema.json`): a line of an export, and
/// of an import. Everything a new server needs to keep the account's passkeys working (the user handle, which the
/// passkeys carry, each public key and its counter) and nothing secret: no session, ticket or key of the server's.
package struct MigratedAccount: Codable, Sendable, Equatable {
    /// The format's name and version, on every line, so a reader can tell what it holds.
    package static let formatName = "latchkey-account-v1"

    package var format: String
    package var username: String
    package var displayName: String
    /// The WebAuthn user handle, base64url: the passkeys hand it back at every sign-in.
    package var userHandle: String
    package var externalId: String?
    package var createdAt: String
    package var disabled: Bool
    package var contact: MigratedContact?
    package var groups: [String]
    package var passkeys: [MigratedPasskey]
}

/// The contact an account was created with (unverified).
package struct MigratedContact: Codable, Sendable, Equatable {
    /// `email` or `phone`.
    package var kind: String
    package var value: String
}

/// A passkey of an account.
package struct MigratedPasskey: Codable, Sendable, Equatable {
    /// The credential ID, base64url.
    package var credentialId: String
    /// The COSE_Key as the authenticator encoded it, base64url.
    package var publicKey: String
    /// Its COSE algorithm (-7 is ES256, -257 RS256, -8 EdDSA).
    package var algorithm: Int
    /// The highest signature counter seen; a sign-in must go above it unless both are zero.
    package var signCount: UInt32
    package var transports: [String]
    /// The authenticator model, as a UUID; all zeros when it did not say.
    package var aaguid: String
    package var backupEligible: Bool
    package var backedUp: Bool
    /// Whether the last ceremony verified the user.
    package var userVerified: Bool
    /// The attestation statement's format at registration (`none`, `packed`, `apple`...).
    package var attestationFormat: String
    package var createdAt: String
    package var lastUsedAt: String?
    package var name: String?
}

extension MigratedAccount {
    /// A time in the format: RFC 3339 in UTC with milliseconds, rounded to the nearest. (A store that keeps
    /// microseconds, or a binary fraction, gives back a hair under what it was given, and a formatter that truncates
    /// would lose a millisecond at each move; rounded, an export of an import is the same bytes.)
    static func time(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        var (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        if fraction < 0 { (seconds, fraction) = (seconds - 1, fraction + 1000) }  // before 1970
        let whole = Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(Date.ISO8601FormatStyle())
        return whole.dropLast() + "." + String(fraction + 1000).dropFirst() + "Z"
    }

    /// `user`'s account as the format has it.
    package init(_ user: UserRecord, passkeys: [CredentialRecord], contact: UserContact?, groups: [String]) {
        self.init(
            format: Self.formatName, username: user.username, displayName: user.displayName, userHandle: Base64URL.encode(user.handle),
            externalId: user.externalId, createdAt: MigratedAccount.time(user.createdAt), disabled: user.disabled,
            contact: contact.map { MigratedContact(kind: $0.kind.rawValue, value: $0.value) }, groups: groups,
            passkeys: passkeys.map(MigratedPasskey.init))
    }
}

extension MigratedPasskey {
    init(_ credential: CredentialRecord) {
        self.init(
            credentialId: Base64URL.encode(credential.id), publicKey: Base64URL.encode(credential.publicKey),
            algorithm: Int(credential.algorithm.rawValue), signCount: credential.signCount, transports: credential.transports.map(\.rawValue),
            aaguid: AAGUID.string(credential.aaguid), backupEligible: credential.backupEligible, backedUp: credential.backedUp,
            userVerified: credential.userVerified, attestationFormat: credential.attestationFormat.rawValue,
            createdAt: MigratedAccount.time(credential.createdAt), lastUsedAt: credential.lastUsedAt.map(MigratedAccount.time), name: credential.name)
    }
}
