import Foundation
import LatchkeyConfiguration
import LatchkeyStore
import WebAuthn

/// What importing one line did (MIGRATING.md): imported, here already, or refused and why. Nothing is half-written.
package enum ImportLineOutcome: Sendable, Equatable {
    case imported(username: String, passkeys: Int)
    /// The account is here already with the same user handle, username and passkeys.
    case unchanged(username: String)
    /// Checked, and would be imported (`--dry-run`).
    case valid(username: String, passkeys: Int)
    case refused(String)
}

/// Accounts moved in from another server in the migration format (``MigratedAccount``), one line at a time, each
/// checked as registration checks a passkey (the COSE key decoded, its points on their curve, its algorithm one this
/// relying party accepts) and written whole or not at all.
package struct AccountImport: Sendable {
    /// A line longer than this is refused unread: a million accounts stream in bounded memory.
    package static let maximumLineBytes = 1 << 20
    /// Passkeys an account may bring.
    static let maximumPasskeys = 100

    let store: any LatchkeyStore
    /// The algorithms registration accepts (`allowSHA1` adds RS1).
    let algorithms: Set<COSEAlgorithm>
    let events: SecurityEventRecorder

    /// Imports into `store`, for a relying party with `configuration`.
    package init(store: any LatchkeyStore, configuration: LatchkeyConfiguration) {
        self.store = store
        algorithms = Set(configuration.relyingParty.algorithms)
        events = SecurityEventRecorder(names: AuthenticatorNames())
    }

    /// Imports into `service`'s store, by its policy.
    package init(service: RelyingPartyService) {
        store = service.store
        algorithms = Set(service.relyingParty.algorithms)
        events = service.events
    }

    /// Imports the account `line` holds, its event from `origin`; with `dryRun`, checks it and writes nothing.
    package func importLine(_ line: [UInt8], dryRun: Bool, origin: EventOrigin, now: Date = Date()) async -> ImportLineOutcome {
        let account: ImportedAccount
        do {
            account = try Self.account(of: line, accepting: algorithms)
        } catch let error as ServiceError {
            return .refused(error.message)
        } catch {
            return .refused("\(error)")
        }
        let username = account.user.username, passkeys = account.credentials.count
        if dryRun { return .valid(username: username, passkeys: passkeys) }
        do {
            let event = try events.event(
                .accountImported, origin, user: account.user, detail: EventStatistics.importedDetail(passkeys: passkeys), at: now)
            switch try await store.importAccount(account, recording: [event]) {
            case .imported: return .imported(username: username, passkeys: passkeys)
            case .unchanged: return .unchanged(username: username)
            case .refused(let reason): return .refused("\(username): \(reason)")
            }
        } catch {
            return .refused("\(username): the store failed: \(error)")
        }
    }

    /// The account of one line, checked; a ``ServiceError`` naming the first problem.
    static func account(of line: [UInt8], accepting algorithms: Set<COSEAlgorithm>) throws -> ImportedAccount {
        let migrated = try StrictJSONDocument.decode(MigratedAccount.self, from: line, document: "the line")
        guard migrated.format == MigratedAccount.formatName else {
            throw ServiceError.invalid("format is \(migrated.format.prefix(40).debugDescription), not \(MigratedAccount.formatName)")
        }
        let username = try UserNames.username(migrated.username)
        let displayName = try UserNames.displayName(migrated.displayName)
        guard let handle = Base64URL.decode(migrated.userHandle), (1...64).contains(handle.count) else {
            throw ServiceError.invalid("userHandle is not 1 to 64 bytes of base64url")
        }
        let user = UserRecord(
            handle: handle, username: username, displayName: displayName, createdAt: try date(migrated.createdAt, "createdAt"),
            externalId: try migrated.externalId.map(UserAdministration.checkedExternalID), disabled: migrated.disabled)
        let contact = try migrated.contact.map { contact throws(ServiceError) -> UserContact in
            let parsed = try ContactIdentifier.parse(contact.value, member: "contact")
            guard parsed.kind.rawValue == contact.kind else { throw ServiceError.invalid("contact is an \(parsed.kind.rawValue), not \(contact.kind)") }
            return parsed
        }
        if let problem = GroupNames.problem(migrated.groups, member: "groups") { throw ServiceError.invalid(problem) }
        guard migrated.passkeys.count <= maximumPasskeys else { throw ServiceError.invalid("an account brings at most \(maximumPasskeys) passkeys") }
        var seen: Set<[UInt8]> = []
        let credentials = try migrated.passkeys.enumerated().map { index, passkey in
            let credential = try self.credential(passkey, of: handle, accepting: algorithms, number: index + 1)
            guard seen.insert(credential.id).inserted else { throw ServiceError.invalid("passkey \(index + 1) has the credential ID of another in the line") }
            return credential
        }
        return ImportedAccount(user: user, credentials: credentials, contact: contact, groups: Set(migrated.groups).sorted())
    }

    private static func credential(
        _ passkey: MigratedPasskey, of handle: [UInt8], accepting algorithms: Set<COSEAlgorithm>, number: Int
    ) throws -> CredentialRecord {
        func refuse(_ problem: String) -> ServiceError { ServiceError.invalid("passkey \(number): \(problem)") }
        guard let id = Base64URL.decode(passkey.credentialId), (1...1023).contains(id.count) else {
            throw refuse("credentialId is not 1 to 1023 bytes of base64url")
        }
        guard let keyBytes = Base64URL.decode(passkey.publicKey) else { throw refuse("publicKey is not base64url") }
        let key: COSEKey
        do {
            key = try COSEKey(try CBORDecoder().decode(keyBytes))
        } catch let error as WebAuthnError {
            throw refuse("publicKey: \(error.message)")
        }
        guard key.algorithm.rawValue == Int64(passkey.algorithm) else {
            throw refuse("algorithm is \(passkey.algorithm), but the key is for \(key.algorithm.rawValue)")
        }
        guard algorithms.contains(key.algorithm) else {
            throw refuse("algorithm \(key.algorithm.name) is not one this relying party accepts (\(algorithms.map(\.name).sorted().joined(separator: ", ")))")
        }
        guard let aaguid = AAGUID(passkey.aaguid) else { throw refuse("aaguid is not a UUID") }
        // A name of the IANA registry's form: lower-case letters, digits and dashes.
        let formatName = passkey.attestationFormat
        guard (1...32).contains(formatName.utf8.count),
              formatName.utf8.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") })
        else { throw refuse("attestationFormat \(formatName.prefix(40).debugDescription) is not an attestation format's name") }
        let format = AttestationFormatIdentifier(rawValue: formatName)
        return CredentialRecord(
            id: id, userHandle: handle, publicKey: keyBytes, algorithm: key.algorithm, signCount: passkey.signCount,
            // Transports this version does not know are left out, as a client's are (WebAuthn §5.8.4).
            transports: passkey.transports.compactMap(AuthenticatorTransport.init(rawValue:)), aaguid: aaguid.bytes,
            attestationFormat: format, attestationType: .none, backupEligible: passkey.backupEligible, backedUp: passkey.backedUp,
            residentKey: nil, userVerified: passkey.userVerified, createdAt: try date(passkey.createdAt, "passkey \(number): createdAt"),
            lastUsedAt: try passkey.lastUsedAt.map { try date($0, "passkey \(number): lastUsedAt") }, name: passkey.name)
    }

    private static func date(_ text: String, _ member: String) throws -> Date {
        guard let date = RFC3339.date(text) else { throw ServiceError.invalid("\(member) is not an RFC 3339 time") }
        return date
    }
}
