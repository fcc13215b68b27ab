import Foundation
import LatchkeyStore
import LatchkeyStoreSQL
import PostgresNIO
import WebAuthn

/// Records to and from rows. A stored value that maps to no known case throws
/// ``StoreError/Code/database`` naming the value.
enum PostgresRows {
    // MARK: Columns, in the order the readers expect; `prefix` is a table alias and a dot, or empty

    /// Columns of `users` for ``user`` and of `credentials` for ``credential``: ``StoreColumns``.
    static func userColumns(_ prefix: String = "") -> String { StoreColumns.users(prefix) }
    static func credentialColumns(_ prefix: String = "") -> String { StoreColumns.credentials(prefix) }
    static let userColumnCount = 6
    static let credentialColumnCount = 20

    /// Eleven columns of `pending_ceremonies`, for ``ceremony(_:)``: ``StoreColumns``.
    static func ceremonyColumns(_ prefix: String = "") -> String { StoreColumns.ceremonies(prefix) }
    static let ceremonyColumnCount = 11

    /// The columns of `sessions` that ``session(_:)`` reads.
    static func sessionColumns(_ prefix: String = "") -> String {
        "\(prefix)token_hash, \(prefix)user_handle, \(prefix)created_at, \(prefix)expires_at, \(prefix)methods"
    }

    // MARK: Readers

    static func user(_ row: inout ColumnReader) throws -> UserRecord {
        UserRecord(
            handle: try row.bytes(), username: try row.utf8(), displayName: try row.utf8(), createdAt: try row.next(),
            externalId: try row.optionalUTF8(), disabled: try row.next(Bool.self))
    }

    static func credential(_ row: inout ColumnReader) throws -> CredentialRecord {
        let id = try row.bytes()
        let userHandle = try row.bytes()
        let publicKey = try row.bytes()
        let algorithm = COSEAlgorithm(rawValue: try row.next(Int64.self))
        let storedSignCount = try row.next(Int64.self)
        guard let signCount = UInt32(exactly: storedSignCount) else {
            throw StoreError(.database, "a credential has a signature counter out of range: \(storedSignCount)")
        }
        // Values this version does not know are dropped, as a newer version may have written them.
        let transports = try row.next([String].self).compactMap(AuthenticatorTransport.init(rawValue:))
        let aaguid = try row.bytes()
        let attestationFormat = AttestationFormatIdentifier(rawValue: try row.next(String.self))
        let storedType = try row.next(String.self)
        guard let attestationType = AttestationType(rawValue: storedType) else {
            throw StoreError(.database, "a credential has an unknown attestation type \"\(storedType)\"")
        }
        let backupEligible = try row.next(Bool.self)
        let backedUp = try row.next(Bool.self)
        let residentKey = try row.next(Bool?.self)
        let userVerified = try row.next(Bool.self)
        let createdAt = try row.next(Date.self)
        let lastUsedAt = try row.next(Date?.self)
        let attestationTrusted = try row.next(Bool.self)
        let trustPath = try row.next([ByteBuffer].self).map { Array($0.readableBytesView) }
        var credentialProtectionPolicy: UInt8?
        if let level = try row.next(Int64?.self) {
            guard let level = UInt8(exactly: level) else {
                throw StoreError(.database, "a credential has a credProtect level out of range: \(level)")
            }
            credentialProtectionPolicy = level
        }
        let signCountRegressions = Int(try row.next(Int64.self))
        let name = try row.optionalUTF8()
        return CredentialRecord(
            id: id, userHandle: userHandle, publicKey: publicKey, algorithm: algorithm, signCount: signCount,
            transports: transports, aaguid: aaguid, attestationFormat: attestationFormat,
            attestationType: attestationType, attestationTrusted: attestationTrusted, trustPath: trustPath,
            credentialProtectionPolicy: credentialProtectionPolicy, signCountRegressions: signCountRegressions,
            backupEligible: backupEligible, backedUp: backedUp, residentKey: residentKey, userVerified: userVerified,
            createdAt: createdAt, lastUsedAt: lastUsedAt, name: name)
    }

    static func ceremony(_ row: inout ColumnReader) throws -> PendingCeremony {
        let challengeHash = try row.bytes()
        let kind = try row.next(String.self)
        guard let ceremonyKind = CeremonyKind(rawValue: kind) else {
            throw StoreError(.database, "a pending ceremony has an unknown kind \"\(kind)\"")
        }
        let userHandle = try row.optionalBytes()
        let username = try row.optionalUTF8()
        let displayName = try row.optionalUTF8()
        let requirement = try row.next(String.self)
        guard let userVerification = UserVerificationRequirement(rawValue: requirement) else {
            throw StoreError(.database, "a pending ceremony has an unknown user verification \"\(requirement)\"")
        }
        return PendingCeremony(
            challengeHash: challengeHash, kind: ceremonyKind, userHandle: userHandle, username: username,
            displayName: displayName, userVerification: userVerification, bindingHash: try row.optionalBytes(),
            expiresAt: try row.next(Date.self), enrollmentTicketHash: try row.optionalBytes(), conditional: try row.next(Bool.self),
            nonce: try row.optionalUTF8())
    }

    static func session(_ row: inout ColumnReader) throws -> SessionRecord {
        SessionRecord(
            tokenHash: try row.bytes(), userHandle: try row.bytes(), createdAt: try row.next(), expiresAt: try row.next(),
            methods: try row.next(String.self).split(separator: " ").map(String.init))
    }

    /// Reads `count` columns with `read`, or nil when the first is NULL: a LEFT JOIN found no row.
    static func optional<T>(_ row: inout ColumnReader, columns count: Int, _ read: (inout ColumnReader) throws -> T) throws -> T? {
        guard !row.nextIsNull else {
            row.skip(count)
            return nil
        }
        return try read(&row)
    }

    // MARK: Writers

    /// Inserts `tenant`'s user with every column of ``userColumns(_:)``.
    static func insert(_ user: UserRecord, of tenant: TenantID) -> PostgresQuery {
        """
        INSERT INTO users (\(unescaped: userColumns()), tenant) VALUES (
            \(user.handle.bytea), \(user.username.utf8Bytea), \(user.displayName.utf8Bytea), \(user.createdAt),
            \(user.externalId?.utf8Bytea), \(user.disabled), \(tenant)
        )
        """
    }

    /// Inserts `tenant`'s credential with every column of ``credentialColumns(_:)``.
    static func insert(_ credential: CredentialRecord, of tenant: TenantID) -> PostgresQuery {
        """
        INSERT INTO credentials (\(unescaped: credentialColumns()), tenant) VALUES (
            \(credential.id.bytea), \(credential.userHandle.bytea), \(credential.publicKey.bytea),
            \(credential.algorithm.rawValue), \(Int64(credential.signCount)), \(credential.transports.map(\.rawValue)),
            \(credential.aaguid.bytea), \(credential.attestationFormat.rawValue), \(credential.attestationType.rawValue),
            \(credential.backupEligible), \(credential.backedUp), \(credential.residentKey), \(credential.userVerified),
            \(credential.createdAt), \(credential.lastUsedAt), \(credential.attestationTrusted),
            \(credential.trustPath.map(\.bytea)), \(credential.credentialProtectionPolicy.map(Int16.init)),
            \(Int64(credential.signCountRegressions)), \(credential.name?.utf8Bytea), \(tenant)
        )
        """
    }
}
