import ArgumentParser
import Foundation
import LatchkeyConfiguration
import LatchkeyService
import LatchkeyStore
import Logging

/// `latchkey admin-keys ...`: the keys a backend calls the admin API with.
struct AdminKeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin-keys", abstract: "Create, list and revoke admin API keys (kept in the configured store).",
        subcommands: [Create.self, List.self, Revoke.self])

    /// `latchkey admin-keys create --name NAME`: prints a new key, once.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an admin key and print it on standard output; it is never shown again.")

        @Option(help: "A name for the key (1-64 letters, digits, '.', '_', '-', not starting with '-'), to list and revoke it by.")
        var name: String

        @OptionGroup var scope: AdminKeyScope

        func validate() throws { try scope.validate() }

        func run() async throws {
            let key = try await withStore { store in
                let store = try await scope.store(in: store)
                do {
                    return try await AdminKeys.create(named: name, in: store)
                } catch let error as AdminKeyError {
                    throw CommandFailure(error.message, exitCode: 64)  // EX_USAGE
                } catch let error as StoreError where error.code == .nameTaken {
                    throw CommandFailure("an admin key named \"\(name)\" exists already; revoke it first or choose another name", exitCode: 65)
                }
            }
            print(key)
            FileHandle.standardError.write(Data(
                "latchkey: \(scope.kind) \"\(name)\" created; keep it secret: it is shown only this once, and the store keeps only its hash\n".utf8))
        }
    }

    /// `latchkey admin-keys list`: names and dates, never a key.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the admin keys: name, created, last used (never the key).")

        @OptionGroup var scope: AdminKeyScope

        func validate() throws { try scope.validate() }

        func run() async throws {
            let keys = try await withStore(creatingIfMissing: false) { try await scope.store(in: $0).adminKeys() }
            guard !keys.isEmpty else {
                print("no admin keys; make one with: latchkey admin-keys create --name NAME")
                return
            }
            let width = max(4, keys.map(\.name.count).max() ?? 0)
            print("NAME".padding(toLength: width, withPad: " ", startingAt: 0) + "  CREATED               LAST USED")
            for key in keys {
                print(key.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + Self.time(key.createdAt) + "  "
                    + (key.lastUsedAt.map(Self.time) ?? "never"))
            }
        }

        static func time(_ date: Date) -> String {
            date.formatted(.iso8601.year().month().day().timeZone(separator: .omitted).time(includingFractionalSeconds: false))
        }
    }

    /// `latchkey admin-keys revoke NAME`: the key stops working at once on every instance.
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke an admin key: it stops working at once on every instance.")

        @Argument(help: "The name of the key.")
        var name: String

        @OptionGroup var scope: AdminKeyScope

        func validate() throws { try scope.validate() }

        func run() async throws {
            try await withStore(creatingIfMissing: false) { store in
                guard try await AdminKeys.revoke(named: name, in: try await scope.store(in: store)) else {
                    throw CommandFailure("there is no \(scope.kind) named \"\(name)\"", exitCode: 65)  // EX_DATAERR
                }
            }
            print("\(scope.kind) \"\(name)\" revoked")
        }
    }
}

/// Whose keys an `admin-keys` command is about: the default tenant's (the configuration's), a stored tenant's
/// (`--tenant ID`), or the operators' (`--operator`), whose keys manage tenants through `/admin/v1/tenants`.
struct AdminKeyScope: ParsableArguments {
    @Flag(name: .customLong("operator"), help: "An operator key, for /admin/v1/tenants, instead of an admin key.")
    var isOperator = false

    @Option(help: "The tenant whose admin key this is (default: the default tenant, the configuration's).")
    var tenant: String?

    func validate() throws {
        if isOperator, tenant != nil { throw ValidationError("--operator and --tenant exclude each other: an operator key is no tenant's") }
        if let tenant, let problem = TenantID.problem(with: tenant) { throw ValidationError("--tenant: \(problem)") }
    }

    var kind: String { isOperator ? "operator key" : "admin key" }

    /// The store scoped to the keys' owner, its events going to the owner's webhooks; a tenant the store does not hold
    /// is refused.
    func store(in store: any LatchkeyStore) async throws -> any LatchkeyStore {
        if isOperator { return RelyingParties.operatorsStore(in: store) }
        guard let tenant, let id = TenantID(tenant), id != .default else { return store }
        return try await tenantStore(id, in: store)
    }
}

/// The store scoped to the stored tenant `id`, its events going to that tenant's webhook receivers as the server sends
/// them; the command's failure when the store holds no such tenant or its settings no longer read.
func tenantStore(_ id: TenantID, in store: any LatchkeyStore) async throws -> any LatchkeyStore {
    let record = try await storedTenant(id, in: store)
    return RelyingParties.store(of: try Tenant(record, server: try loadConfiguration().configuration), in: store)
}

/// The stored tenant `id`, or the command's failure naming it when the store holds none.
func storedTenant(_ id: TenantID, in store: any LatchkeyStore) async throws -> TenantRecord {
    guard let record = try await store.tenant(id: id) else {
        throw CommandFailure("there is no tenant \"\(id)\" (make it with POST /admin/v1/tenants)", exitCode: 65)
    }
    return record
}

/// `latchkey signing-keys ...`: the keys sign-in tokens are signed with.
struct SigningKeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signing-keys", abstract: "Rotate the key that signs sign-in tokens (kept in the configured store).",
        subcommands: [Rotate.self])

    /// `latchkey signing-keys rotate`.
    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a new signing key: published in /.well-known/jwks.json at once, it signs on every instance once --activate-in has passed; the previous key stays published until the tokens it signed have expired.")

        @Option(help: "Seconds before the new key signs, so that verifiers caching the key set fetch it first (0: at once).")
        var activateIn: Int = 300

        @Option(help: "The tenant whose key to rotate (default: the default tenant, the configuration's).")
        var tenant: String?

        func validate() throws {
            guard (0...86_400).contains(activateIn) else { throw ValidationError("--activate-in is 0 to 86400 seconds") }
            if let tenant, let problem = TenantID.problem(with: tenant) { throw ValidationError("--tenant: \(problem)") }
        }

        func run() async throws {
            let added = try await withStore { store in
                let server = try loadConfiguration().configuration
                guard let tenant, let id = TenantID(tenant), id != .default else {
                    try await SigningKeys.prepare(store, configuration: server)
                    return try await SigningKeys.rotate(store, activateIn: TimeInterval(activateIn))
                }
                let record = try await storedTenant(id, in: store)
                let scoped = try await tenantStore(id, in: store)
                // Its own issuer, audience and token lifetime, as the server reads its settings.
                try await SigningKeys.prepare(scoped, configuration: try Tenant(record, server: server).configuration)
                return try await SigningKeys.rotate(scoped, activateIn: TimeInterval(activateIn))
            }
            let when = added.signsFrom.formatted(.iso8601.year().month().day().timeZone(separator: .omitted).time(includingFractionalSeconds: false))
            print("signing key \(added.keyID) (generation \(added.generation)) is published now and signs from \(when)")
        }
    }
}

/// A command that failed in a way to tell the operator in one line.
struct CommandFailure: Error {
    let message: String
    let exitCode: Int32
    init(_ message: String, exitCode: Int32) {
        self.message = message
        self.exitCode = exitCode
    }
}

/// Opens the configured store, runs `body` and closes the store; a bad configuration or an
/// unreachable store is exit 78 with its message, a ``CommandFailure`` its own. A SQLite file that
/// is not there (a mistyped `LATCHKEY_DATABASE`, say) is made only for a command that writes
/// (`creatingIfMissing`), and the operator is told; a command that reads or changes what is there
/// refuses.
func withStore<T: Sendable>(creatingIfMissing: Bool = true, _ body: (any LatchkeyStore) async throws -> T) async throws -> T {
    let settings = try loadConfiguration().configuration
    var logger = Logger(label: "latchkey")
    logger.logLevel = .warning
    let isNewSQLiteFile = !settings.database.contains("://") && !FileManager.default.fileExists(atPath: settings.database)
    if isNewSQLiteFile, !creatingIfMissing {
        FileHandle.standardError.write(Data(
            "latchkey: there is no store at \(settings.database) (LATCHKEY_DATABASE); `latchkey serve` makes it when it first starts\n".utf8))
        throw ExitCode(78)
    }
    let store: any LatchkeyStore
    do {
        store = try await StoreBackend.open(settings, logger: logger)
    } catch let error as ConfigurationError {
        FileHandle.standardError.write(Data("latchkey: configuration error: \(error.message)\n".utf8))
        throw ExitCode(78)
    } catch let error as StoreError {
        FileHandle.standardError.write(Data("latchkey: configuration error: database (LATCHKEY_DATABASE): \(error.message)\n".utf8))
        throw ExitCode(78)
    }
    // Said once it is made: a store that could not be made was not (a folder the user cannot write, say).
    if isNewSQLiteFile {
        FileHandle.standardError.write(Data(
            "latchkey: no store was at \(settings.database) (LATCHKEY_DATABASE): made a new, empty one\n".utf8))
    }
    do {
        let result = try await body(store)
        await StoreBackend.close(store)
        return result
    } catch let failure as CommandFailure {
        await StoreBackend.close(store)
        FileHandle.standardError.write(Data("latchkey: \(failure.message)\n".utf8))
        throw ExitCode(failure.exitCode)
    } catch let error as StoreError {
        await StoreBackend.close(store)
        FileHandle.standardError.write(Data("latchkey: database (LATCHKEY_DATABASE): \(error.message)\n".utf8))
        throw ExitCode(74)  // EX_IOERR
    }
}

/// `latchkey users ...`: accounts the admin API cannot name.
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Find and rename accounts whose usernames no admin route can address (kept before such names were refused).",
        subcommands: [Unaddressable.self, Rename.self])

    /// `latchkey users unaddressable`: one username a line; exit 1 when there is any.
    struct Unaddressable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List, one a line, the usernames with a \".\" or \"..\" segment (\"../bob\"), which no /admin/v1/users/{username} route can name; exit 1 when there is any.")

        func run() async throws {
            let users = try await withStore(creatingIfMissing: false) { try await UnaddressableUsernames.list(in: $0) }
            guard !users.isEmpty else {
                FileHandle.standardError.write(Data("latchkey: every username can be addressed by the admin API\n".utf8))
                return
            }
            // As kept, to paste into `users rename` (a username holds no control character, so one a line).
            for user in users { print(user.username) }
            FileHandle.standardError.write(Data(
                "latchkey: \(users.count) account\(users.count == 1 ? "" : "s") the admin API cannot name; give each a new username with: latchkey users rename OLD NEW\n".utf8))
            throw ExitCode(1)
        }
    }

    /// `latchkey users rename OLD NEW`.
    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give an account a new username (its passkeys, sessions and token subject stay); recorded as user.updated.")

        @Argument(help: "The username as the account is kept, as `latchkey users unaddressable` prints it (after `--` when it starts with '-').")
        var old: String
        @Argument(help: "The new username, checked as every new username is.")
        var new: String

        func run() async throws {
            let renamed = try await withStore(creatingIfMissing: false) { store in
                do {
                    return try await UnaddressableUsernames.rename(old, to: new, in: store)
                } catch let error as UsernameRenameError {
                    throw CommandFailure(error.message, exitCode: 65)  // EX_DATAERR
                }
            }
            print("account \(old.debugDescription) is now \(renamed.username.debugDescription)")
        }
    }
}

/// `latchkey stats ...`: the statistics kept as the data changes.
struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "The per-day statistics behind GET /admin/v1/stats and the console.", subcommands: [Backfill.self])

    /// `latchkey stats backfill`.
    struct Backfill: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rebuild a tenant's statistics from its events (after an upgrade from a Latchkey without them): live writes wait meanwhile; the webhook outcome counts are kept; the user totals are corrected to what the store holds when older events were purged.")

        @Option(help: "The tenant whose statistics to rebuild (default: the default tenant, the configuration's).")
        var tenant: String?

        func validate() throws {
            if let tenant, let problem = TenantID.problem(with: tenant) { throw ValidationError("--tenant: \(problem)") }
        }

        func run() async throws {
            let rebuilt = try await withStore(creatingIfMissing: false) { store in
                guard let tenant, let id = TenantID(tenant), id != .default else { return try await store.rebuildStatistics() }
                _ = try await storedTenant(id, in: store)
                return try await store.scoped(to: id).rebuildStatistics()
            }
            var line = "rebuilt the statistics from \(rebuilt.events) events: \(rebuilt.rows) rows"
            if rebuilt.usersCorrection != 0 || rebuilt.usersWithPasskeyCorrection != 0 {
                line += "; the user totals were corrected by \(rebuilt.usersCorrection) users and \(rebuilt.usersWithPasskeyCorrection) passkey holders, the history the events no longer hold (purged after their retention, or older than events)"
            }
            print(line)
        }
    }
}

/// `latchkey operators ...`: the people who sign in to the console.
struct OperatorsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "operators", abstract: "The operators who sign in to the console (/console/) with a passkey.",
        subcommands: [Add.self, List.self, Remove.self])

    /// `latchkey operators add NAME`.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an operator (or another passkey for one) and print the one-time link, valid for a day, that enrolls their passkey at consoleOrigin.")

        @Argument(help: "The operator's name, as usernames are written.")
        var name: String

        func run() async throws {
            let enrollment = try await withStore { store in
                let settings = try loadConfiguration().configuration
                do {
                    return try await OperatorRelyingParty.add(name, store: store, configuration: settings)
                } catch let error as ServiceError {
                    throw CommandFailure("operators add: \(error.message)", exitCode: 65)
                } catch let error as ConfigurationError {
                    throw CommandFailure("operators add: \(error.message)", exitCode: 78)
                }
            }
            let when = enrollment.expiresAt.formatted(.iso8601.year().month().day().timeZone(separator: .omitted).time(includingFractionalSeconds: false))
            print(enrollment.created ? "operator \(enrollment.name) added" : "operator \(enrollment.name) exists: this link adds another passkey")
            print("open this link once, before \(when), to enroll the operator's passkey:")
            print(enrollment.url)
        }
    }

    /// `latchkey operators list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the operators: name, passkeys, last sign-in.")

        func run() async throws {
            let operators = try await withStore(creatingIfMissing: false) { try await OperatorRelyingParty.list(store: $0) }
            if operators.isEmpty { print("no operators (add one with latchkey operators add NAME)") }
            for entry in operators {
                // Enrolling signs the operator in without using the passkey again, so a new operator has no last use yet.
                let last = entry.lastSignInAt.map { "last signed in \($0.formatted(.iso8601))" }
                    ?? (entry.passkeys > 0 ? "signed in only when enrolling" : "not enrolled yet: open the link operators add printed")
                print("\(entry.user.username)\t\(entry.passkeys) passkey\(entry.passkeys == 1 ? "" : "s")\t\(last)")
            }
        }
    }

    /// `latchkey operators remove NAME`.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an operator with their passkeys, sessions and enrollment links: signed out at once, on every instance.")

        @Argument(help: "The operator's name.")
        var name: String

        func run() async throws {
            let removed = try await withStore(creatingIfMissing: false) { store in
                do {
                    return try await OperatorRelyingParty.remove(name, store: store)
                } catch let error as ServiceError {
                    throw CommandFailure("operators remove: \(error.message)", exitCode: 65)
                }
            }
            guard removed else { throw CommandFailure("there is no operator \(name.debugDescription)", exitCode: 65) }
            print("operator \(name) removed")
        }
    }
}
