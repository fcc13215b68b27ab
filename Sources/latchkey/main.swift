import ArgumentParser
import Foundation
import LatchkeyServer
import Logging

/// The `latchkey` command.
@main
struct Latchkey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A WebAuthn / passkey relying-party server.",
        subcommands: [Serve.self, CheckConfig.self])
}

/// `latchkey serve`: loads the configuration and runs the server until interrupted.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the server.")

    func run() async throws {
        let settings = try loadConfiguration()
        var logger = Logger(label: "latchkey")
        logger.logLevel = Logger.Level(rawValue: settings.logLevel) ?? .info
        logger.info("starting", metadata: [
            "address": "\(settings.host):\(settings.port)", "rpID": "\(settings.rpID)",
            "origins": "\(settings.origins.joined(separator: ","))", "database": "\(settings.database)",
            "conformanceMode": "\(settings.conformanceMode)",
        ])
        let application = try LatchkeyServer.application(configuration: settings, logger: logger)
        try await application.runService()
    }
}

/// `latchkey check-config`: validates the configuration and prints the result.
struct CheckConfig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "check-config", abstract: "Validate the configuration and print it.")

    func run() async throws {
        let settings = try loadConfiguration()
        print("configuration is valid: rpID \(settings.rpID), origins \(settings.origins.joined(separator: ", ")), port \(settings.port), database \(settings.database)")
    }
}

/// Loads the configuration or exits with a message naming the bad key.
func loadConfiguration() throws -> LatchkeyConfiguration {
    do {
        return try LatchkeyConfiguration.load(environment: ProcessInfo.processInfo.environment)
    } catch let error as ConfigurationError {
        FileHandle.standardError.write(Data("latchkey: configuration error: \(error.message)\n".utf8))
        throw ExitCode(78)  // EX_CONFIG
    }
}
