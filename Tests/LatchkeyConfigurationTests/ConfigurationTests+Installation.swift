import Foundation
import Testing
@testable import LatchkeyConfiguration

/// Configuration that passes must work: relative paths resolve against one home whatever the
/// current directory, the files and folders the server needs exist, a strict attestation policy
/// has something to trust, the RP ID and the host can be used, and unknown variables are told.
extension ConfigurationTests {
    /// A temporary installation folder: `Public/`, `Config/roots/` with the Apple root, and what a
    /// test adds.
    struct Installation {
        let folder: URL
        var home: LatchkeyHome { LatchkeyHome(path: folder.path, origin: .environment) }

        init(public: Bool = true, shippedRoots: Bool = true, shippedRootCertificates: Bool = true) throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-home-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            if `public` { try make("Public") }
            if shippedRoots {
                try make("Config/roots")
                if shippedRootCertificates { try copyAppleRoot(to: "Config/roots/apple.pem") }
            }
        }

        func path(_ relative: String) -> String { folder.appendingPathComponent(relative).standardizedFileURL.path }

        func make(_ relative: String) throws {
            try FileManager.default.createDirectory(atPath: path(relative), withIntermediateDirectories: true)
        }

        func write(_ relative: String, _ contents: String) throws {
            try FileManager.default.createDirectory(
                atPath: URL(fileURLWithPath: path(relative)).deletingLastPathComponent().path, withIntermediateDirectories: true)
            try contents.write(toFile: path(relative), atomically: true, encoding: .utf8)
        }

        func copyAppleRoot(to relative: String) throws {
            let root = ConfigurationTests.repository.appendingPathComponent("Config/roots/apple/apple-webauthn-root-ca.pem")
            try write(relative, String(contentsOf: root, encoding: .utf8))
        }

        func load(_ environment: [String: String] = [:]) throws -> LoadedConfiguration {
            try ConfigurationLoader.load(environment: environment, home: home)
        }

        /// The problems of a configuration that must be refused, one per line.
        func problems(_ environment: [String: String], sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
            let error = #expect(throws: ConfigurationError.self, sourceLocation: sourceLocation) {
                try ConfigurationLoader.load(environment: environment, home: home)
            }
            return error?.problems ?? []
        }
    }

    // MARK: - One base for relative paths

    @Test func everyRelativePathResolvesAgainstTheHome() throws {
        let installation = try Installation()
        let loaded = try installation.load()
        let configuration = loaded.configuration
        #expect(loaded.home == installation.home)
        #expect(configuration.home == installation.folder.path)
        #expect(configuration.publicDirectory == installation.path("Public"))
        #expect(configuration.trustAnchors == installation.path("Config/trust-anchors"))
        #expect(configuration.shippedTrustAnchors == installation.path("Config/roots"))
        #expect(configuration.metadataBLOB == installation.path("data/mds-blob.jwt"))
        #expect(configuration.metadataRoots == installation.path("Config/mds-roots"))
        #expect(configuration.authenticatorNames == installation.path("Config/passkey-provider-aaguids.json"))
        #expect(configuration.database == installation.path("data/latchkey.sqlite"))
        // Only paths change: everything else is the default.
        #expect(configuration == LatchkeyConfiguration().resolvingPaths(against: installation.home))
        #expect(loaded.sources["publicDirectory"] == .defaultValue)
    }

    @Test func relativeValuesFromTheEnvironmentResolveAgainstTheHomeToo() throws {
        let installation = try Installation()
        try installation.make("site")
        let configuration = try installation.load([
            "LATCHKEY_PUBLIC_DIRECTORY": "site", "LATCHKEY_DATABASE": "state/db.sqlite",
            "LATCHKEY_METADATA_BLOB": "/var/lib/latchkey/mds.jwt",
        ]).configuration
        #expect(configuration.publicDirectory == installation.path("site"))
        #expect(configuration.database == installation.path("state/db.sqlite"))
        #expect(configuration.metadataBLOB == "/var/lib/latchkey/mds.jwt", "an absolute path stays as it is")
        // A database URL is not a path.
        let url = "postgres://latchkey:hunter2@db.example/latchkey"
        #expect(try installation.load(["LATCHKEY_DATABASE": url]).configuration.database == url)
    }

    @Test func theDefaultFileIsTheHomes() throws {
        let installation = try Installation()
        try installation.write("Config/latchkey.json", #"{"rpName": "From the home", "publicDirectory": "Public"}"#)
        let loaded = try installation.load()
        #expect(loaded.configuration.rpName == "From the home")
        #expect(loaded.sources["rpName"] == .file(installation.path("Config/latchkey.json")))
        #expect(loaded.configuration.publicDirectory == installation.path("Public"), "paths in the file resolve against the home")
    }

    @Test func theHomeIsLatchkeyHomeThenTheInstallationAboveTheExecutableThenTheCurrentDirectory() throws {
        let installation = try Installation()
        try installation.write("Config/latchkey.json", "{}")
        try installation.make(".build/x86_64-unknown-linux-gnu/debug")
        let elsewhere = try Installation()

        let named = try LatchkeyHome.find(environment: ["LATCHKEY_HOME": installation.folder.path], executable: nil, currentDirectory: "/")
        #expect(named == LatchkeyHome(path: installation.folder.path, origin: .environment))
        // Relative to the current directory (a command-line choice).
        let relative = try LatchkeyHome.find(
            environment: ["LATCHKEY_HOME": installation.folder.lastPathComponent], executable: nil,
            currentDirectory: installation.folder.deletingLastPathComponent().path)
        #expect(relative.path == installation.folder.path)

        // A checkout's build folder and an installation's bin/ find the folder holding Config/latchkey.json.
        for executable in [".build/x86_64-unknown-linux-gnu/debug/latchkey", "bin/latchkey", "latchkey"] {
            let found = try LatchkeyHome.find(environment: [:], executable: installation.path(executable), currentDirectory: elsewhere.folder.path)
            #expect(found.path == installation.folder.path, "\(executable)")
            #expect(found.origin == .installation(executable: installation.path(executable)))
        }
        // No installation above the executable: the current directory, and the description says so.
        let fallback = try LatchkeyHome.find(environment: [:], executable: elsewhere.path("bin/latchkey"), currentDirectory: elsewhere.folder.path)
        #expect(fallback.path == elsewhere.folder.path)
        #expect(fallback.description.contains("current directory") && fallback.description.contains("LATCHKEY_HOME"))
    }

    @Test func aMissingLatchkeyHomeIsRefused() throws {
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.load(environment: ["LATCHKEY_HOME": "/nonexistent/latchkey"])
        }
        #expect(error?.problems == ["LATCHKEY_HOME: folder /nonexistent/latchkey does not exist (it names the installation folder relative paths are resolved against)"])
        let installation = try Installation()
        try installation.write("file", "")
        #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.load(environment: ["LATCHKEY_HOME": installation.path("file")])
        }
        // LATCHKEY_HOME is what the loader uses when no home is given.
        let loaded = try ConfigurationLoader.load(environment: ["LATCHKEY_HOME": installation.folder.path])
        #expect(loaded.home.origin == .environment)
        #expect(loaded.configuration.publicDirectory == installation.path("Public"))
    }

    // MARK: - Missing files and folders

    @Test func aMissingPublicDirectoryIsRefusedFromEverySource() throws {
        let installation = try Installation(public: false)
        #expect(installation.problems([:]) == ["publicDirectory (default): folder \(installation.path("Public")) does not exist"])
        #expect(installation.problems(["LATCHKEY_PUBLIC_DIRECTORY": "/nonexistent/www"])
            == ["publicDirectory (LATCHKEY_PUBLIC_DIRECTORY): folder /nonexistent/www does not exist"])
        let file = try temporaryFile(#"{"publicDirectory": "www"}"#)
        #expect(installation.problems(["LATCHKEY_CONFIG": file])
            == ["publicDirectory (file \(file)): folder \(installation.path("www")) does not exist"])
        try installation.write("index.html", "<p>")
        #expect(installation.problems(["LATCHKEY_PUBLIC_DIRECTORY": "index.html"])
            == ["publicDirectory (LATCHKEY_PUBLIC_DIRECTORY): \(installation.path("index.html")) is a file, not a folder"])
    }

    @Test func trustAnchorsMayBeMissingOnlyAtTheDefault() throws {
        let installation = try Installation()
        #expect(try installation.load().configuration.trustAnchors == installation.path("Config/trust-anchors"))
        #expect(try installation.load(["LATCHKEY_TRUST_ANCHORS": "Config/trust-anchors"]).sources["trustAnchors"]
            == .environment("LATCHKEY_TRUST_ANCHORS"), "the default path named explicitly is still optional")
        #expect(installation.problems(["LATCHKEY_TRUST_ANCHORS": "anchors"])
            == ["trustAnchors (LATCHKEY_TRUST_ANCHORS): folder \(installation.path("anchors")) does not exist"])
    }

    @Test func theShippedRootsMustBeThere() throws {
        let installation = try Installation(shippedRoots: false)
        let problems = installation.problems([:])
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("shippedTrustAnchors (default, under the home): folder \(installation.path("Config/roots")) does not exist") == true, "\(problems)")
        #expect(problems.first?.contains("LATCHKEY_HOME") == true)
    }

    @Test func metadataRootsMustExistWhenABLOBIsPresent() throws {
        let installation = try Installation()
        // No BLOB: the roots folder is not needed.
        #expect(try installation.load(["LATCHKEY_METADATA_ROOTS": "/nonexistent/mds-roots"]).configuration.metadataRoots == "/nonexistent/mds-roots")
        try installation.write("data/mds-blob.jwt", "not checked here")
        #expect(installation.problems([:]) == ["metadataRoots (default): folder \(installation.path("Config/mds-roots")) does not exist"])
        #expect(installation.problems(["LATCHKEY_METADATA_ROOTS": "/nonexistent/mds-roots"])
            == ["metadataRoots (LATCHKEY_METADATA_ROOTS): folder /nonexistent/mds-roots does not exist"])
        #expect(installation.problems(["LATCHKEY_METADATA_BLOB": "Config"])
            == ["metadataBLOB (LATCHKEY_METADATA_BLOB): \(installation.path("Config")) is a folder, not a file"])
    }

    @Test func authenticatorNamesMayBeMissingOnlyAtTheDefault() throws {
        let installation = try Installation()
        _ = try installation.load()
        #expect(installation.problems(["LATCHKEY_AUTHENTICATOR_NAMES": "names.json"])
            == ["authenticatorNames (LATCHKEY_AUTHENTICATOR_NAMES): file \(installation.path("names.json")) does not exist"])
        #expect(installation.problems(["LATCHKEY_AUTHENTICATOR_NAMES": "Public"])
            == ["authenticatorNames (LATCHKEY_AUTHENTICATOR_NAMES): \(installation.path("Public")) is a folder, not a file"])
    }

    // MARK: - Nothing to trust, an RP ID browsers refuse, a host that does not resolve

    @Test(arguments: ["self-or-trusted", "trusted-only"])
    func aStrictPolicyNeedsATrustAnchor(policy: String) throws {
        let installation = try Installation(shippedRootCertificates: false)
        _ = try installation.load()  // the default policy needs no anchor
        let problems = installation.problems(["LATCHKEY_ATTESTATION_POLICY": policy])
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("attestationPolicy (LATCHKEY_ATTESTATION_POLICY): \(policy) needs a trust anchor, and there is none") == true, "\(problems)")
        // One configured anchor is enough.
        try installation.copyAppleRoot(to: "anchors/apple.pem")
        #expect(try installation.load(["LATCHKEY_ATTESTATION_POLICY": policy, "LATCHKEY_TRUST_ANCHORS": "anchors"])
            .configuration.attestationPolicy.rawValue == policy)
        // And so are the shipped ones.
        #expect(try Installation().load(["LATCHKEY_ATTESTATION_POLICY": policy]).configuration.attestationPolicy.rawValue == policy)
    }

    @Test(arguments: ["127.0.0.1", "192.168.1.10", "::1", "[::1]", "2001:db8::1"])
    func anIPAddressIsNotAnRPID(address: String) {
        #expect(error(["LATCHKEY_RP_ID": address])
            == "rpID (LATCHKEY_RP_ID): \"\(address)\" is an IP address, which browsers refuse as an RP ID: use a domain name (localhost on this machine)")
    }

    @Test func aHostThatDoesNotResolveIsRefused() throws {
        let message = error(["LATCHKEY_HOST": "no-such-host.invalid"])
        #expect(message.hasPrefix(#"host (LATCHKEY_HOST): "no-such-host.invalid" does not resolve"#), "\(message)")
        for host in ["0.0.0.0", "::", "127.0.0.1", "localhost"] {
            #expect(try loaded(["LATCHKEY_HOST": host]).configuration.host == host)
        }
    }

    @Test func theseProblemsAreListedTogether() throws {
        let installation = try Installation(public: false)
        let problems = installation.problems([
            "LATCHKEY_HOST": "no-such-host.invalid", "LATCHKEY_RP_ID": "10.0.0.1", "LATCHKEY_TRUST_ANCHORS": "/nonexistent/anchors",
        ])
        #expect(problems.map { String($0.prefix { $0 != " " }) } == ["host", "rpID", "publicDirectory", "trustAnchors"], "\(problems)")
    }

    // MARK: - Warnings

    @Test func unknownVariablesAreWarnedAboutWithTheClosestKnownOne() throws {
        let loaded = try Installation().load([
            "LATCHKEY_RPID": "example.com", "LATCHKEY_PROT": "9000", "LATCHKEY_BIN": "/x", "LATCHKEY_HOME": "/ignored-by-an-explicit-home",
            "LATCHKEY_CONFIG_FILE": "x", "PORT": "1",
            // What `eval "$(scripts/postgres start)"` exports is the scripts', not the server's: no warning.
            "LATCHKEY_POSTGRES_DIR": "/tmp/pg", "LATCHKEY_TEST_POSTGRES_URL": "postgres://x@127.0.0.1/postgres",
        ])
        #expect(loaded.configuration.rpID == "localhost", "an unknown variable sets nothing")
        #expect(loaded.warnings == [
            "LATCHKEY_BIN is not a Latchkey setting and is ignored",
            "LATCHKEY_CONFIG_FILE is not a Latchkey setting and is ignored; did you mean LATCHKEY_CONFIG?",
            "LATCHKEY_PROT is not a Latchkey setting and is ignored; did you mean LATCHKEY_PORT?",
            "LATCHKEY_RPID is not a Latchkey setting and is ignored; did you mean LATCHKEY_RP_ID?",
        ])
        // A refused configuration carries them too: the misspelling may be why it is refused.
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.load(environment: ["LATCHKEY_ORIGNS": "https://example.com", "LATCHKEY_PORT": "0"], home: Installation().home)
        }
        #expect(error?.warnings == ["LATCHKEY_ORIGNS is not a Latchkey setting and is ignored; did you mean LATCHKEY_ORIGINS?"])
    }

    @Test(arguments: [
        ("LATCHKEY_RPID", "LATCHKEY_RP_ID"), ("LATCHKEY_TRUST_ANCHOR", "LATCHKEY_TRUST_ANCHORS"),
        ("LATCHKEY_PUBLIC_DIR", "LATCHKEY_PUBLIC_DIRECTORY"), ("LATCHKEY_CONFORMANCE", "LATCHKEY_CONFORMANCE_MODE"),
        ("LATCHKEY_HOME_DIR", "LATCHKEY_HOME"), ("LATCHKEY_BIN", nil), ("LATCHKEY_LOGLEVEL", "LATCHKEY_LOG_LEVEL"),
        ("LATCHKEY_attestation_policy", "LATCHKEY_ATTESTATION_POLICY"), ("LATCHKEY_E2E_STARTUP_TIMEOUT", nil),
    ] as [(String, String?)])
    func theClosestKnownVariable(typed: String, meant: String?) {
        #expect(ConfigurationLoader.closestKnownVariable(to: typed) == meant)
    }

    @Test func conformanceModeIsWarnedAbout() throws {
        let installation = try Installation()
        #expect(try installation.load().warnings == [])
        let warnings = try installation.load(["LATCHKEY_CONFORMANCE_MODE": "true"]).warnings
        #expect(warnings.count == 1)
        #expect(warnings.first?.hasPrefix("conformanceMode is on (LATCHKEY_CONFORMANCE_MODE): it is for the FIDO conformance tools only, never for production") == true)
    }
}
