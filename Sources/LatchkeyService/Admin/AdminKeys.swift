import Foundation
import LatchkeyStore
import WebAuthn

/// Admin API keys: `lk_admin_` and 32 random bytes in base64url, shown once when made. The store
/// keeps only the SHA-256 of the key, and a request's key is looked up by that hash, so no key is
/// ever compared byte by byte.
public enum AdminKeys {
    /// What every admin key starts with, so that one found in a log or a repository is recognised.
    public static let prefix = "lk_admin_"
    /// What every operator key (an admin key of ``TenantID/operators``, for `/admin/v1/tenants`) starts with.
    public static let operatorPrefix = "lk_operator_"

    /// A key name: 1 to 64 letters, digits, `.`, `_` and `-`, not starting with `-` (which the command line that
    /// revokes it would read as an option: `admin-keys revoke -h` printed help and revoked nothing).
    public static func checkName(_ name: String) throws {
        let allowed = name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        guard (1...64).contains(name.utf8.count), allowed, !name.hasPrefix("-") else {
            throw AdminKeyError("an admin key name is 1 to 64 letters, digits, '.', '_' and '-', not starting with '-'; \"\(name)\" is not")
        }
    }

    /// Makes a key named `name`, stores its hash and returns the key, which is never shown again.
    /// Throws ``StoreError/Code/nameTaken`` when the name is in use.
    public static func create(named name: String, in store: any LatchkeyStore, now: Date = Date()) async throws -> String {
        try checkName(name)
        let key = (store.tenant == .operators ? operatorPrefix : prefix) + Base64URL.encode(try SecureRandom.bytes(count: 32))
        try await store.saveAdminKey(
            AdminKeyRecord(name: name, keyHash: hash(key), createdAt: now),
            recording: [try event(.adminKeyCreated, name: name, now: now)])
        return key
    }

    /// Revokes the key named `name` at once, on every instance; false when there is none. `actor` revoked it: the
    /// command line (the system), or an operator in the console.
    public static func revoke(
        named name: String, in store: any BackendStore, by actor: SecurityEventActor = .system("cli"), now: Date = Date()
    ) async throws -> Bool {
        try await store.deleteAdminKey(named: name, recording: [try event(.adminKeyRevoked, name: name, by: actor, now: now)])
    }

    /// Admin keys are made at the command line (the system acts) and revoked there or in the console.
    private static func event(
        _ type: SecurityEventType, name: String, by actor: SecurityEventActor = .system("cli"), now: Date
    ) throws -> SecurityEvent {
        SecurityEvent(
            id: try SecurityEventRecorder.newID(), type: type, occurredAt: now, actor: actor, detail: "admin key \(name.debugDescription)")
    }

    /// The hash the store keeps of a key.
    package static func hash(_ key: String) -> [UInt8] {
        Digest.sha256(Array(key.utf8))
    }
}

/// A bad admin key name.
public struct AdminKeyError: Error, Sendable, CustomStringConvertible {
    public let message: String
    package init(_ message: String) { self.message = message }
    public var description: String { message }
}
