import Foundation
import LatchkeyStore
import LatchkeyStoreSQL
import WebAuthn

/// Records to and from rows. Reads start at a column offset, so joined rows reuse them; a stored
/// value that maps to no known case throws ``StoreError/Code/database`` naming the value.
enum SQLiteRows {
    // MARK: Columns, in the order the readers expect; `prefix` is a table alias and a dot, or empty

    /// Columns of `users` for ``user`` and of `credentials` for ``credential``: ``StoreColumns``.
    static func userColumns(_ prefix: String = "") -> String { StoreColumns.users(prefix) }
    static func credentialColumns(_ prefix: String = "") -> String { StoreColumns.credentials(prefix) }

    /// Eleven columns of `pending_ceremonies`, for ``ceremony(_:at:)``: ``StoreColumns``.
    static let ceremonyColumns = StoreColumns.ceremonies()

    /// Four columns of `sessions`, for ``session(_:at:)``.
    static func sessionColumns(_ prefix: String = "") -> String {
        "\(prefix)token_hash, \(prefix)user_handle, \(prefix)created_at, \(prefix)expires_at, \(prefix)methods"
    }

    // MARK: Readers

    static func user(_ row: SQLiteStatement, at offset: Int32 = 0) -> UserRecord {
        UserRecord(
            handle: row.blob(offset), username: row.text(offset + 1), displayName: row.text(offset + 2),
            createdAt: row.date(offset + 3), externalId: row.optionalText(offset + 4), disabled: row.bool(offset + 5))
    }

    static func credential(_ row: SQLiteStatement, at offset: Int32 = 0) throws -> CredentialRecord {
        let attestationType = try row.withText(offset + 8) { raw in
            guard let type = AttestationType(rawValue: String(decoding: raw, as: UTF8.self)) else {
                throw StoreError(.database, "a credential has an unknown attestation type \"\(String(decoding: raw, as: UTF8.self))\"")
            }
            return type
        }
        let signCount = row.int64(offset + 4)
        guard let signCount = UInt32(exactly: signCount) else {
            throw StoreError(.database, "a credential has a signature counter out of range: \(signCount)")
        }
        var credentialProtectionPolicy: UInt8?
        if !row.isNull(offset + 17) {
            let level = row.int64(offset + 17)
            guard let level = UInt8(exactly: level) else {
                throw StoreError(.database, "a credential has a credProtect level out of range: \(level)")
            }
            credentialProtectionPolicy = level
        }
        return CredentialRecord(
            id: row.blob(offset), userHandle: row.blob(offset + 1), publicKey: row.blob(offset + 2),
            algorithm: COSEAlgorithm(rawValue: row.int64(offset + 3)), signCount: signCount,
            transports: row.withText(offset + 5, transports), aaguid: row.blob(offset + 6),
            attestationFormat: AttestationFormatIdentifier(rawValue: row.text(offset + 7)),
            attestationType: attestationType,
            attestationTrusted: row.bool(offset + 15),
            trustPath: try row.withText(offset + 16, trustPath),
            credentialProtectionPolicy: credentialProtectionPolicy,
            signCountRegressions: Int(row.int64(offset + 18)),
            backupEligible: row.bool(offset + 9), backedUp: row.bool(offset + 10),
            residentKey: row.optionalBool(offset + 11), userVerified: row.bool(offset + 12),
            createdAt: row.date(offset + 13), lastUsedAt: row.optionalDate(offset + 14),
            name: row.optionalText(offset + 19))
    }

    static func ceremony(_ row: SQLiteStatement, at offset: Int32 = 0) throws -> PendingCeremony {
        let kind = row.text(offset + 1)
        guard let ceremonyKind = CeremonyKind(rawValue: kind) else {
            throw StoreError(.database, "a pending ceremony has an unknown kind \"\(kind)\"")
        }
        let requirement = row.text(offset + 5)
        guard let userVerification = UserVerificationRequirement(rawValue: requirement) else {
            throw StoreError(.database, "a pending ceremony has an unknown user verification \"\(requirement)\"")
        }
        return PendingCeremony(
            challengeHash: row.blob(offset), kind: ceremonyKind, userHandle: row.optionalBlob(offset + 2),
            username: row.optionalText(offset + 3), displayName: row.optionalText(offset + 4),
            userVerification: userVerification, bindingHash: row.optionalBlob(offset + 6),
            expiresAt: row.date(offset + 7), enrollmentTicketHash: row.optionalBlob(offset + 8), conditional: row.bool(offset + 9),
            nonce: row.optionalText(offset + 10))
    }

    static func session(_ row: SQLiteStatement, at offset: Int32 = 0) -> SessionRecord {
        SessionRecord(
            tokenHash: row.blob(offset), userHandle: row.blob(offset + 1), createdAt: row.date(offset + 2),
            expiresAt: row.date(offset + 3), methods: list(row.text(offset + 4), separator: " "))
    }

    /// The items of a list kept in one text column, `separator` between them (an ASCII character), empty ones left out:
    /// split as UTF-8, as the rows of every request are read.
    static func list(_ text: String, separator: Character) -> [String] {
        guard let byte = separator.asciiValue else { return text.split(separator: separator).map(String.init) }
        return text.utf8.split(separator: byte).map { String(decoding: $0, as: UTF8.self) }
    }

    // MARK: Lists in one text column

    /// Transports as comma-separated raw values: "usb,internal".
    static func transportList(_ transports: [AuthenticatorTransport]) -> String {
        var text = ""
        for transport in transports {
            if !text.isEmpty { text.append(",") }
            text.append(transport.rawValue)
        }
        return text
    }

    /// Reads a transport list, dropping values this version does not know.
    static func transports(_ text: UnsafeBufferPointer<UInt8>) -> [AuthenticatorTransport] {
        var transports: [AuthenticatorTransport] = []
        forEachItem(in: text) { item in
            // Transport names fit a small string, so this makes no heap allocation.
            if let transport = AuthenticatorTransport(rawValue: String(decoding: item, as: UTF8.self)) {
                transports.append(transport)
            }
        }
        return transports
    }

    /// A certificate path as comma-separated base64 DER certificates, leaf first.
    static func trustPathList(_ certificates: [[UInt8]]) -> String {
        var text = ""
        for certificate in certificates {
            if !text.isEmpty { text.append(",") }
            text.append(Data(certificate).base64EncodedString())
        }
        return text
    }

    static func trustPath(_ text: UnsafeBufferPointer<UInt8>) throws -> [[UInt8]] {
        var certificates: [[UInt8]] = []
        try forEachItem(in: text) { item in
            guard let certificate = Data(base64Encoded: Data(item)) else {
                throw StoreError(.database, "a credential's trust path has a certificate that is not base64")
            }
            certificates.append(Array(certificate))
        }
        return certificates
    }

    /// Calls `body` with each non-empty comma-separated item of `text`, without copying it.
    private static func forEachItem(
        in text: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws -> Void
    ) rethrows {
        var start = 0
        for index in 0...text.count where index == text.count || text[index] == UInt8(ascii: ",") {
            if index > start { try body(UnsafeBufferPointer(rebasing: text[start..<index])) }
            start = index + 1
        }
    }
}
