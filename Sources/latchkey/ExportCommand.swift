import ArgumentParser
import Foundation
import LatchkeyService
import LatchkeyStore

/// `latchkey export`: every account of a tenant, with its passkeys, as JSON Lines on standard output (MIGRATING.md), to
/// move to another server or keep. Nothing secret is in it: no session, ticket or key of the server's.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every account and its passkeys as JSON Lines on standard output (MIGRATING.md).")

    @Option(help: "The tenant to export (default: the default tenant).")
    var tenant: String?

    @Option(help: "Export only the account with this username.")
    var user: String?

    func validate() throws {
        if let tenant, let problem = TenantID.problem(with: tenant) { throw ValidationError("--tenant: \(problem)") }
    }

    func run() async throws {
        let count = try await withStore(creatingIfMissing: false) { store -> Int in
            var scoped = store
            if let tenant, let id = TenantID(tenant), id != .default { scoped = try await tenantStore(id, in: store) }
            let export = AccountExport(store: scoped)
            let output = FileHandle.standardOutput
            if let user {
                guard let account = try await export.account(named: user) else {
                    throw CommandFailure("there is no user \"\(user)\"", exitCode: 65)  // EX_DATAERR
                }
                output.write(try AccountExport.line(account))
                return 1
            }
            return try await export.forEachPiece { output.write($0) }
        }
        FileHandle.standardError.write(Data("latchkey: exported \(count) account\(count == 1 ? "" : "s")\n".utf8))
    }
}
