import ArgumentParser
import Foundation
import LatchkeyAuthenticator
import LatchkeyService
import WebAuthn

/// `latchkey authenticator ...`: a software passkey provider for shells and tests.
struct AuthenticatorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authenticator",
        abstract: "A software passkey provider: reads options on stdin, writes credential JSON on stdout.",
        discussion: """
            Pipe the reply of POST /attestation/options into `register`, or of POST /assertion/options \
            into `sign-in`, and post the output to the matching /result endpoint. Keys are kept in the \
            --keys file (JSON, mode 0600, rewritten atomically). User presence and verification are \
            always reported; credentials are discoverable and not backed up (BE and BS clear).
            On error nothing is written to stdout, a message goes to stderr, and the exit status is 1 \
            for options this authenticator cannot answer (no matching credential, unsupported \
            algorithm, wrong RP ID, excluded credential), 64 for a bad --origin, 65 for input that is \
            not options (malformed JSON, a failed reply) or an unreadable keys file, 73 when the keys \
            file cannot be written.
            """,
        subcommands: [Register.self, SignIn.self, DeviceKeyCommand.self, AppAttestCommand.self])

    /// `latchkey authenticator register`: creation options in, `RegistrationResponseJSON` out.
    struct Register: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a credential for the creation options on stdin.")

        @Option(help: "The keys file (created with mode 0600 when missing).")
        var keys: String

        @Option(help: "The origin the client data carries, such as https://example.com (http only for localhost).")
        var origin: String

        @Option(help: "The credential algorithm: ES256, ES384, EdDSA or RS256 (default: the first in pubKeyCredParams that is one of these).")
        var alg: String?

        @Option(help: "none, or packed (self attestation signed with the credential key); default: packed when the options ask for attestation, else none.")
        var attestation: String?

        func validate() throws {
            if let alg, CredentialAlgorithm(rawValue: alg) == nil {
                throw ValidationError("--alg \(alg) is not one of \(CredentialAlgorithm.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            if let attestation, SoftwareAuthenticator.Attestation(rawValue: attestation) == nil {
                throw ValidationError("--attestation \(attestation) is not none or packed")
            }
        }

        func run() throws {
            try answerOptions(endpoint: "/attestation/options") { options in
                let authenticator = try SoftwareAuthenticator(origin: origin, keyFilePath: keys)
                return try authenticator.register(
                    options: options, algorithm: alg.flatMap(CredentialAlgorithm.init(rawValue:)),
                    attestation: attestation.flatMap(SoftwareAuthenticator.Attestation.init(rawValue:)))
            }
        }
    }

    /// `latchkey authenticator sign-in`: request options in, `AuthenticationResponseJSON` out.
    struct SignIn: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sign-in", abstract: "Sign the request options on stdin with a stored credential and advance its counter.")

        @Option(help: "The keys file.")
        var keys: String

        @Option(help: "The origin the client data carries, such as https://example.com (http only for localhost).")
        var origin: String

        @Option(parsing: .unconditional, help: "Use a credential of this username (default: the most recently created that matches).")
        var user: String?

        func run() throws {
            try answerOptions(endpoint: "/assertion/options") { options in
                let authenticator = try SoftwareAuthenticator(origin: origin, keyFilePath: keys)
                return try authenticator.signIn(options: options, username: user)
            }
        }
    }
}

/// `latchkey authenticator device-key ...`: a software stand-in for an app's device key.
struct DeviceKeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device-key", abstract: "An app's device key (as an iPhone keeps one in its Secure Enclave), in a PEM file.",
        subcommands: [Enroll.self, SignIn.self])

    /// `latchkey authenticator device-key enroll --key FILE`: enrollment options in, the enrollment out.
    struct Enroll: ParsableCommand {
        // `enrol`, its name before Latchkey settled on one spelling, still works.
        static let configuration = CommandConfiguration(
            abstract: "Make a new key in FILE and answer the options of POST /device-keys/options (stdin) for POST /device-keys.",
            aliases: ["enrol"])

        @Option(help: "The key's PEM file, created with mode 0600 (it must not exist).")
        var key: String

        func run() throws {
            try answerOptions(endpoint: "/device-keys/options") { try DeviceKeyAuthenticator(keyPath: key).enroll(options: $0) }
        }
    }

    /// `latchkey authenticator device-key sign-in --key FILE`: sign-in options in, the signed answer out.
    struct SignIn: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sign-in", abstract: "Sign the options of POST /device-keys/sign-in/options (stdin) with the key in FILE.")

        @Option(help: "The key's PEM file.")
        var key: String

        func run() throws {
            try answerOptions(endpoint: "/device-keys/sign-in/options") { try DeviceKeyAuthenticator(keyPath: key).signIn(options: $0) }
        }
    }
}

/// `latchkey authenticator app-attest ...`: a software stand-in for App Attest, with a test CA.
struct AppAttestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app-attest",
        abstract: "An app's App Attest key, attested by a test CA (for servers with appAttestTestRoots), in a JSON file.",
        discussion: """
            `attest` answers the reply of POST /app-attest/challenge for POST /app-attest/keys; `assert` \
            adds an appAttestChallenge to a request body and writes the body to send, with the \
            X-Latchkey-App-Attest header line in --header-file (for curl -H @FILE), or without \
            --header-file the body of POST /app-attest/assertions. The test CA is made in --ca on first use.
            """,
        subcommands: [Attest.self, Assert.self])

    /// `latchkey authenticator app-attest attest --key FILE --app-id ID`: a challenge in, the attestation out.
    struct Attest: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a key in FILE and attest it for the reply of POST /app-attest/challenge (stdin), for POST /app-attest/keys.")

        @Option(help: "The key file, created with mode 0600 (it must not exist).")
        var key: String

        @Option(help: "The folder of the test CA (made when missing): list it in appAttestTestRoots.")
        var ca: String

        @Option(name: .customLong("app-id"), help: "The app, as TEAMID.bundle.id (one of the server's appleAppIDs).")
        var appID: String

        @Option(help: "development (AAGUID appattestdevelop) or production.")
        var environment = "development"

        func validate() throws {
            guard AppAttestEnvironment(rawValue: environment) != nil else {
                throw ValidationError("--environment must be development or production, not \(environment)")
            }
        }

        func run() throws {
            let environment = AppAttestEnvironment(rawValue: environment) ?? .development
            try answerOptions(endpoint: "/app-attest/challenge") {
                try AppAttestAuthenticator(keyPath: key, caFolder: ca).attest(challengeReply: $0, appID: appID, environment: environment)
            }
        }
    }

    /// `latchkey authenticator app-attest assert --key FILE --challenge C`: a body in, the asserted body out.
    struct Assert: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Assert over the JSON request body on stdin, with the challenge of POST /app-attest/challenge added to it.")

        @Option(help: "The key file made by attest.")
        var key: String

        // Unconditional: one challenge in 64 starts with "-", which is still the value, not an option.
        @Option(parsing: .unconditional, help: "The challenge of a POST /app-attest/challenge reply (base64url; it may start with '-').")
        var challenge: String

        @Option(name: .customLong("header-file"), help: "Write the X-Latchkey-App-Attest header line here, and the body to send on stdout.")
        var headerFile: String?

        func run() throws {
            try answerOptions(endpoint: "", input: "the request body is read on stdin: pipe in the JSON object to send") { body in
                let asserted = try AppAttestAuthenticator(keyPath: key, caFolder: "").assert(body: body, challenge: challenge)
                guard let headerFile else { return asserted.assertionRequest }
                let line = "X-Latchkey-App-Attest: \(asserted.header)\n"
                guard FileManager.default.createFile(atPath: headerFile, contents: Data(line.utf8)) else {
                    throw AuthenticatorError(.unwritableKeyFile, "cannot write the header file \(headerFile)")
                }
                return asserted.body
            }
        }
    }
}

/// Reads the options on stdin and writes `answer`'s JSON on stdout; on error, writes nothing
/// there, the message to stderr, and exits with the error's status.
private func answerOptions(endpoint: String, input: String? = nil, _ answer: ([UInt8]) throws -> [UInt8]) throws {
    do {
        guard isatty(STDIN_FILENO) == 0 else {
            throw AuthenticatorError(.malformedOptions, input ?? "the options are read on stdin: pipe in the reply of POST \(endpoint)")
        }
        let options = Array(FileHandle.standardInput.readDataToEndOfFile())
        FileHandle.standardOutput.write(Data(try answer(options)))
    } catch let error as AuthenticatorError {
        FileHandle.standardError.write(Data("latchkey authenticator: \(error.message)\n".utf8))
        throw ExitCode(exitStatus(error.code))
    }
}

/// sysexits(3) statuses for input and file problems; 1 for options that cannot be answered.
private func exitStatus(_ code: AuthenticatorError.Code) -> Int32 {
    switch code {
    case .invalidOrigin: return 64  // EX_USAGE
    case .malformedOptions, .failedReply, .unreadableKeyFile: return 65  // EX_DATAERR
    case .unwritableKeyFile: return 73  // EX_CANTCREAT
    case .cryptoFailure: return 70  // EX_SOFTWARE
    default: return 1
    }
}
