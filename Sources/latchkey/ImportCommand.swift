import ArgumentParser
import Foundation
import LatchkeyConfiguration
import LatchkeyService
import LatchkeyStore

/// `latchkey import FILE`: accounts and passkeys from another server, one JSON line each (MIGRATING.md), written one
/// account at a time, whole or not at all. A report line per input line goes to standard output; the counts to
/// standard error. Running it twice imports nothing new.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import accounts and passkeys from JSON Lines (MIGRATING.md); a report line per input line.")

    @Argument(help: "The file to read, as `latchkey export` writes it; - for standard input.")
    var file: String

    @Option(help: "The tenant to import into (default: the default tenant).")
    var tenant: String?

    @Flag(help: "Check every line and write nothing.")
    var dryRun = false

    func validate() throws {
        if let tenant, let problem = TenantID.problem(with: tenant) { throw ValidationError("--tenant: \(problem)") }
    }

    func run() async throws {
        let input: FileHandle
        if file == "-" {
            input = .standardInput
        } else {
            guard let opened = FileHandle(forReadingAtPath: file) else { throw CommandFailure("cannot read \(file)", exitCode: 66) }  // EX_NOINPUT
            input = opened
        }
        let server = try loadConfiguration().configuration
        let counts = try await withStore(creatingIfMissing: false) { store -> ImportCounts in
            var scoped = store, configuration = server
            if let tenant, let id = TenantID(tenant), id != .default {
                let record = try await storedTenant(id, in: store)
                let served = try Tenant(record, server: server)
                (scoped, configuration) = (RelyingParties.store(of: served, in: store), served.configuration)
            }
            let importer = AccountImport(store: scoped, configuration: configuration)
            var counts = ImportCounts()
            var lines = BoundedLines(input, maximumBytes: AccountImport.maximumLineBytes)
            while let (number, line) = try lines.next() {
                let outcome: ImportLineOutcome
                switch line {
                case .tooLong(let bytes):
                    outcome = .refused("the line is longer than \(AccountImport.maximumLineBytes) bytes (\(bytes)); it was not read")
                case .text(let bytes) where bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }):
                    continue
                case .text(let bytes):
                    outcome = await importer.importLine(bytes, dryRun: dryRun, origin: .system("import"))
                }
                counts.add(outcome)
                print("line \(number): \(Self.describe(outcome))")
            }
            return counts
        }
        FileHandle.standardError.write(Data("latchkey: \(counts.summary(dryRun: dryRun))\n".utf8))
        if counts.refused > 0 { throw ExitCode(65) }  // EX_DATAERR: some lines were refused, the others imported
    }

    static func describe(_ outcome: ImportLineOutcome) -> String {
        switch outcome {
        case .imported(let username, let passkeys): "imported \(username) (\(passkeys) passkey\(passkeys == 1 ? "" : "s"))"
        case .unchanged(let username): "skipped \(username): here already with the same data"
        case .valid(let username, let passkeys): "valid: \(username) (\(passkeys) passkey\(passkeys == 1 ? "" : "s"))"
        case .refused(let reason): "refused: \(reason)"
        }
    }
}

/// How many lines came to what.
struct ImportCounts: Sendable {
    var imported = 0, unchanged = 0, valid = 0, refused = 0

    mutating func add(_ outcome: ImportLineOutcome) {
        switch outcome {
        case .imported: imported += 1
        case .unchanged: unchanged += 1
        case .valid: valid += 1
        case .refused: refused += 1
        }
    }

    func summary(dryRun: Bool) -> String {
        dryRun
            ? "checked: \(valid) valid, \(refused) refused (nothing written)"
            : "imported \(imported), skipped \(unchanged) (here already), refused \(refused)"
    }
}

/// The lines of a file, read in blocks: a line over `maximumBytes` is skipped to its end unread, so memory stays
/// bounded whatever the input.
struct BoundedLines {
    enum Line {
        case text([UInt8])
        /// How many bytes the line had.
        case tooLong(Int)
    }

    private let input: FileHandle
    private let maximumBytes: Int
    private var buffer: [UInt8] = []
    private var position = 0
    private var ended = false
    private var number = 0

    init(_ input: FileHandle, maximumBytes: Int) {
        self.input = input
        self.maximumBytes = maximumBytes
    }

    /// The next line (its number from 1, without its newline), or nil at the end.
    mutating func next() throws -> (Int, Line)? {
        var line: [UInt8] = []
        var length = 0
        while true {
            if position == buffer.count {
                guard !ended else {
                    guard length > 0 else { return nil }
                    number += 1
                    return (number, length > maximumBytes ? .tooLong(length) : .text(line))
                }
                buffer = Array(try input.read(upToCount: 1 << 16) ?? Data())
                position = 0
                if buffer.isEmpty { ended = true }
                continue
            }
            let rest = buffer[position...]
            let newline = rest.firstIndex(of: UInt8(ascii: "\n"))
            let piece = rest[..<(newline ?? buffer.count)]
            length += piece.count
            if length <= maximumBytes { line.append(contentsOf: piece) } else { line = [] }
            position = newline.map { $0 + 1 } ?? buffer.count
            if newline != nil {
                number += 1
                return (number, length > maximumBytes ? .tooLong(length) : .text(line))
            }
        }
    }
}
