import ArgumentParser
import Foundation
import LatchkeyService
import LatchkeyStoreSQLite

/// `latchkey backup FILE`: a consistent copy of the configured SQLite store, taken while the server
/// runs. Restore by stopping the server and putting the copy in the database's place (or pointing
/// `LATCHKEY_DATABASE` at it).
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the SQLite store, consistently, while the server runs (PostgreSQL: use pg_dump).")

    @Argument(help: "The file to write; it must not exist.")
    var file: String

    func run() async throws {
        let settings = try loadConfiguration().configuration
        guard !settings.database.contains("://") else {
            throw fail("the store is PostgreSQL: back it up with pg_dump (docs/OPERATIONS.md, \"Backups\")", exitCode: 64)  // EX_USAGE
        }
        let destination = URL(fileURLWithPath: file).standardizedFileURL.path
        do {
            let pages = try SQLiteBackup.copy(from: settings.database, to: destination)
            print("backed up \(settings.database) to \(destination) (\(pages) pages)")
        } catch {
            throw fail("\(error)", exitCode: 74)  // EX_IOERR
        }
    }

    private func fail(_ message: String, exitCode: Int32) -> ExitCode {
        FileHandle.standardError.write(Data("latchkey: backup: \(message)\n".utf8))
        return ExitCode(exitCode)
    }
}
