import ArgumentParser
import Foundation
import LatchkeyConfiguration
import LatchkeyServer
import LatchkeyService
import LatchkeyStore
import Logging
import Metrics
import NIOCore
import NIOPosix
import Prometheus
import ServiceLifecycle
import WebAuthn

/// Starts `latchkey` with Swift concurrency's jobs run on SwiftNIO's event loop threads: a
/// request's handler, its store calls and its socket I/O then share threads instead of handing
/// each step between two pools. This must happen before any task exists, hence a synchronous
/// entry point.
///
/// The command runs in a detached task, off the main actor that `main` is isolated to, and the
/// main thread only waits: nothing runs on the main queue. That lets `valgrind --tool=callgrind`
/// run the server and count its instructions, which it could not under `dispatchMain()` (Valgrind
/// itself crashed once the server's threads started).
@main
enum LatchkeyMain {
    static func main() {
        // Log lines carry local time; without TZ, glibc reads /etc/localtime's status again for
        // every line (a `stat` per request). Naming the file once keeps the same zone.
        setenv("TZ", ":/etc/localtime", 0)
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        Task.detached {
            await Latchkey.main()
            exit(0)
        }
        DispatchSemaphore(value: 0).wait()
    }
}

/// The `latchkey` command.
struct Latchkey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A WebAuthn / passkey relying-party server.",
        version: LatchkeyServer.version,
        subcommands: [
            Serve.self, CheckConfig.self, AdminKeysCommand.self, SigningKeysCommand.self, UsersCommand.self, MDSCommand.self, BackupCommand.self,
            AuthenticatorCommand.self, StatsCommand.self, OperatorsCommand.self, ExportCommand.self, ImportCommand.self,
        ])
}

/// `latchkey serve`: loads the configuration and runs the server until interrupted.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the server.", discussion: ConfigurationHelp.text)

    /// Options such as `--port 9000`, which `serve` does not take: refused with the variable to
    /// set instead.
    @Argument(parsing: .allUnrecognized, help: .hidden)
    var unrecognized: [String] = []

    func validate() throws {
        guard let first = unrecognized.first else { return }
        let name = first.drop { $0 == "-" }.split(separator: "=", maxSplits: 1).first.map(String.init) ?? first
        // `--port`, `--rp-id`, `--rpID`: the key, whatever the spelling.
        let words = name.split(separator: "-").enumerated().map { $0.offset == 0 ? String($0.element) : $0.element.capitalized }.joined()
        let key = LatchkeyConfiguration.key(named: words)?.name ?? ConfigurationLoader.closestKey(to: words)
        let hint = key.map { key in
            let given = unrecognized.count > 1 && !first.contains("=") ? unrecognized[1] : first.split(separator: "=", maxSplits: 1).dropFirst().first.map(String.init)
            // A secret (a database URL, a token) given on the command line is not echoed back.
            let value = LatchkeyConfiguration.key(named: key)?.isSecret == true ? "VALUE" : given ?? "VALUE"
            return "set \(LatchkeyConfiguration.environmentName(of: key))=\(value) (or \"\(key)\" in the configuration file)"
        } ?? "settings come from LATCHKEY_* variables or the configuration file (latchkey serve --help lists them)"
        throw ValidationError("serve takes no options: \(hint)")
    }

    func run() async throws {
        let settings = try loadConfiguration().configuration
        let format = settings.logFormat
        LoggingSystem.bootstrap { label in LineLogHandler(label: label, format: format) }
        let metricsRegistry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory.latchkey(registry: metricsRegistry))
        var logger = Logger(label: "latchkey")
        logger.logLevel = settings.logLevel
        logger.info("starting", metadata: [
            "address": "\(settings.host):\(settings.port)", "rpID": "\(settings.rpID)",
            "origins": "\(settings.origins.joined(separator: ","))", "database": "\(settings.displayValue(of: "database"))",
            "conformanceMode": "\(settings.conformanceMode)", "home": "\(settings.home)",
        ])
        try await checkCanServe(settings)
        let application = try await makeApplication(settings, metricsRegistry: metricsRegistry, logger: logger)
        let stopNotice = StopSignalNotice(logger: logger)
        defer { withExtendedLifetime(stopNotice) {} }
        do {
            try await application.run()
            logger.notice("stopped")
        } catch {
            if let failure = await ListenFailure.diagnose(error, listeners: ListenFailure.Listener.all(of: settings)) {
                FileHandle.standardError.write(Data(failure.line.utf8))
                throw ExitCode(69)  // EX_UNAVAILABLE
            }
            throw error
        }
    }

    /// Stops before anything starts when the process cannot serve: too few file descriptors for its connection
    /// limit, or a listener that cannot be bound (caught again when binding, for a port taken in between).
    private func checkCanServe(_ settings: LatchkeyConfiguration) async throws {
        if let problem = try LatchkeyServer.descriptorLimitProblem(settings) {
            FileHandle.standardError.write(Data("latchkey: \(problem)\n".utf8))
            throw ExitCode(69)  // EX_UNAVAILABLE
        }
        if let failure = await ListenFailure.check(ListenFailure.Listener.all(of: settings)) {
            FileHandle.standardError.write(Data(failure.line.utf8))
            throw ExitCode(69)
        }
    }

    /// The store opened and the server's services made, or the exit code that says why not: 78 for the
    /// configuration (EX_CONFIG), 69 for a store that did not answer in time (EX_UNAVAILABLE).
    private func makeApplication(
        _ settings: LatchkeyConfiguration, metricsRegistry: PrometheusCollectorRegistry, logger: Logger
    ) async throws -> ServiceGroup {
        do {
            // The loops that serve: connections, their requests and the store's connections.
            // One loop of SwiftNIO's shared group, or all of them (SwiftNIO's bootstraps take its
            // own groups and loops only). Swift concurrency's jobs run on the same group and stay
            // on the loop that resumed them, so with one loop a request never changes threads.
            let eventLoops: any EventLoopGroup = switch settings.eventLoops {
            case .one: MultiThreadedEventLoopGroup.singleton.next()
            case .perCore: MultiThreadedEventLoopGroup.singleton
            }
            let store = try await StoreBackend.open(settings, logger: logger, eventLoops: eventLoops, sqliteLockWait: .zero)
            try await SigningKeys.prepare(store, configuration: settings)
            return try await LatchkeyServer.application(
                configuration: settings, store: store, metricsRegistry: metricsRegistry, eventLoops: eventLoops,
                operations: ProcessInfo.processInfo.environment[OperationsFeatures.benchmarkVariable] == "1" ? .off : .on,
                logger: logger)
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("latchkey: configuration error: \(error.message)\n".utf8))
            throw ExitCode(78)  // EX_CONFIG
        } catch let error as StoreError where error.code == .unavailable || error.code == .busy {
            // Not the configuration's fault: the store is there but did not answer in time.
            FileHandle.standardError.write(Data("latchkey: the store is unavailable (LATCHKEY_DATABASE): \(error.message)\n".utf8))
            throw ExitCode(69)  // EX_UNAVAILABLE
        } catch let error as StoreError {
            FileHandle.standardError.write(Data("latchkey: configuration error: database (LATCHKEY_DATABASE): \(error.message)\n".utf8))
            throw ExitCode(78)
        }
    }
}

/// `latchkey check-config`: validates the configuration and prints the result.
struct CheckConfig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "check-config", abstract: "Validate the configuration, trust anchors and metadata, and print a summary.")

    func run() async throws {
        let loaded = try loadConfiguration()
        warn(loaded.advice)
        let settings = loaded.configuration
        let format = settings.logFormat
        LoggingSystem.bootstrap { label in LineLogHandler(label: label, format: format) }
        // The summary says what loaded; the log adds only warnings, in the configured format.
        var logger = Logger(label: "latchkey")
        logger.logLevel = max(settings.logLevel, .warning)
        let storeSummary: String
        do {
            _ = try AttestationTrustLoader.load(settings, logger: logger)
            storeSummary = try await StoreBackend.check(settings)
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("latchkey: configuration error: \(error.message)\n".utf8))
            throw ExitCode(78)
        }
        print("home \(loaded.home): relative paths are resolved against it\n")
        // One line per key: name, value, source; secrets redacted.
        for line in loaded.summary { print(line) }
        // The domain association files, as `serve` would answer them.
        for file in settings.wellKnownFiles { print("\n" + file.summary) }
        print("\n" + storeSummary)
        print("\nconfiguration is valid: rpID \(settings.rpID), origins \(settings.origins.joined(separator: ", ")), port \(settings.port), database \(settings.displayValue(of: "database"))")
    }
}

/// `latchkey mds ...`: FIDO metadata.
struct MDSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "mds", abstract: "FIDO Metadata Service (MDS3) BLOBs.", subcommands: [Import.self])

    /// `latchkey mds import FILE`: verifies a BLOB and installs it where the server loads it.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Verify a metadata BLOB and install it for the server (restart it to load).")

        @Argument(help: "A metadata BLOB (JWT) downloaded from the FIDO Metadata Service.")
        var file: String

        @Flag(help: "Install even when the BLOB's serial number is not newer than the installed one's.")
        var allowOlder = false

        func run() async throws {
            let settings = try loadConfiguration().configuration
            // Read once: the bytes verified are the bytes installed.
            guard let bytes = FileManager.default.contents(atPath: file) else {
                FileHandle.standardError.write(Data("latchkey: cannot read \(file)\n".utf8))
                throw ExitCode(66)  // EX_NOINPUT
            }
            let metadata: MetadataService
            do {
                metadata = try AttestationTrustLoader.metadata(String(decoding: bytes, as: UTF8.self), source: file, settings)
            } catch let error as ConfigurationError {
                FileHandle.standardError.write(Data("latchkey: \(error.message)\n".utf8))
                throw ExitCode(65)  // EX_DATAERR
            }
            // A replayed older BLOB could bring back an entry whose revocation came later.
            if !allowOlder, FileManager.default.fileExists(atPath: settings.metadataBLOB),
               let installed = try? AttestationTrustLoader.metadata(fromFile: settings.metadataBLOB, settings),
               metadata.blob.number <= installed.blob.number {
                FileHandle.standardError.write(Data("latchkey: BLOB no. \(metadata.blob.number) is not newer than the installed no. \(installed.blob.number); use --allow-older to install it anyway\n".utf8))
                throw ExitCode(65)
            }
            let destination = URL(fileURLWithPath: settings.metadataBLOB)
            try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            let temporary = destination.appendingPathExtension("tmp")
            try bytes.write(to: temporary)
            // rename(2) replaces the old BLOB atomically: the server never sees a missing or half file.
            guard rename(temporary.path, destination.path) == 0 else {
                FileHandle.standardError.write(Data("latchkey: cannot install \(destination.path): \(String(cString: strerror(errno)))\n".utf8))
                throw ExitCode(73)  // EX_CANTCREAT
            }
            print("imported metadata BLOB no. \(metadata.blob.number) with \(metadata.blob.entries.count) entries (next update \(metadata.blob.nextUpdate)) to \(settings.metadataBLOB)")
        }
    }
}

/// Writes each warning to standard error as `latchkey: warning: ...`.
func warn(_ warnings: [String]) {
    for warning in warnings { FileHandle.standardError.write(Data("latchkey: warning: \(warning)\n".utf8)) }
}

/// Loads the configuration (environment over file over defaults) or exits with a message naming
/// the bad key, its source and the problem. Warnings go to standard error either way.
func loadConfiguration() throws -> LoadedConfiguration {
    do {
        let loaded = try ConfigurationLoader.load(environment: ProcessInfo.processInfo.environment)
        warn(loaded.warnings)
        return loaded
    } catch let error as ConfigurationError {
        warn(error.warnings)
        // Every problem, one per line.
        for problem in error.problems {
            FileHandle.standardError.write(Data("latchkey: configuration error: \(problem)\n".utf8))
        }
        throw ExitCode(78)  // EX_CONFIG
    }
}
