import Foundation
import Testing
@testable import LatchkeyConfiguration

/// Configuration that passes must work: relative paths resolve against one home whatever the current directory, the
/// files and folders the server needs exist, and unknown variables are told.
extension ConfigurationTests {
    /// A temporary installation folder: `Public/`, `Config/roots/`, and what a test adds.
    struct Installation {
        let folder: URL
        var home: LatchkeyHome { LatchkeyHome(path: folder.path, origin: .environment) }

        init(public: Bool = true, shippedRoots: Bool = true) throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-home-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            if `public` { try make("Public") }
            if shippedRoots { try make("Config/roots") }
        }

        func path(_ relative: String) -> String { folder.appendingPathComponent(relative).standardizedFileURL.path }

        func make(_ relative: String) throws {
            try FileManager.default.createDirectory(atPath: path(relative), withIntermediateDirectories: true)
        }

        func write(_ relative: String, _ contents: String) throws {
            let parent = URL(fileURLWithPath: path(relative)).deletingLastPathComponent().path
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            try contents.write(toFile: path(relative), atomically: true, encoding: .utf8)
        }

        func load(_ environment: [String: String] = [:]) throws -> LoadedConfiguration {
            try ConfigurationLoader.load(environment: environment, home: home)
        }

        /// The problems of a configuration that must be refused, `HOME` standing for the folder.
        func problems(_ environment: [String: String], sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
            let error = #expect(throws: ConfigurationError.self, sourceLocation: sourceLocation) { try load(environment) }
            return error?.problems.map { $0.replacingOccurrences(of: folder.path, with: "HOME") } ?? []
        }
    }

    // MARK: - One base for relative paths

    @Test func everyRelativePathResolvesAgainstTheHome() throws {
        let installation = try Installation()
        let loaded = try installation.load()
        let configuration = loaded.configuration
        #expect(loaded.home == installation.home && configuration.home == installation.folder.path)
        for (key, relative) in [
            ("publicDirectory", "Public"), ("trustAnchors", "Config/trust-anchors"), ("metadataBLOB", "data/mds-blob.jwt"),
            ("metadataRoots", "Config/mds-roots"), ("authenticatorNames", "Config/passkey-provider-aaguids.json"),
            ("database", "data/latchkey.sqlite"),
        ] {
            #expect(configuration.displayValue(of: key) == installation.path(relative), "\(key)")
        }
        #expect(configuration.shippedTrustAnchors == installation.path("Config/roots"))
        // Only paths change: everything else is the default.
        #expect(configuration == LatchkeyConfiguration().resolvingPaths(against: installation.home))
        #expect(loaded.sources["publicDirectory"] == .defaultValue)

        // From the environment too; absolute paths and URLs stay as they are.
        try installation.make("site")
        let chosen = try installation.load([
            "LATCHKEY_PUBLIC_DIRECTORY": "site", "LATCHKEY_DATABASE": "state/db.sqlite", "LATCHKEY_METADATA_BLOB": "/var/lib/latchkey/mds.jwt",
        ]).configuration
        #expect(chosen.publicDirectory == installation.path("site") && chosen.database == installation.path("state/db.sqlite"))
        #expect(chosen.metadataBLOB == "/var/lib/latchkey/mds.jwt")
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
            #expect(found == LatchkeyHome(path: installation.folder.path, origin: .installation(executable: installation.path(executable))))
        }
        // No installation above the executable: the current directory, and the description says so.
        let fallback = try LatchkeyHome.find(environment: [:], executable: elsewhere.path("bin/latchkey"), currentDirectory: elsewhere.folder.path)
        #expect(fallback.path == elsewhere.folder.path)
        #expect(fallback.description.contains("current directory") && fallback.description.contains("LATCHKEY_HOME"))
    }

    @Test func latchkeyHomeMustNameAFolder() throws {
        let installation = try Installation()
        try installation.write("file", "")
        for (home, problem) in [
            ("/nonexistent/latchkey", "LATCHKEY_HOME: folder /nonexistent/latchkey does not exist (it names the installation folder relative paths are resolved against)"),
            (installation.path("file"), "LATCHKEY_HOME: folder \(installation.path("file")) does not exist (it names the installation folder relative paths are resolved against)"),
            ("", "LATCHKEY_HOME: is empty; name the installation folder, or unset it"),
        ] {
            let error = #expect(throws: ConfigurationError.self) { try ConfigurationLoader.load(environment: ["LATCHKEY_HOME": home]) }
            #expect(error?.problems == [problem])
        }
        // LATCHKEY_HOME is what the loader uses when no home is given.
        let loaded = try ConfigurationLoader.load(environment: ["LATCHKEY_HOME": installation.folder.path])
        #expect(loaded.home.origin == .environment && loaded.configuration.publicDirectory == installation.path("Public"))
    }

    // MARK: - Files and folders the server needs

    /// The installation has `Public/`, the shipped roots, a file `index.html` and a BLOB `blob.jwt`.
    @Test(arguments: [
        (["LATCHKEY_PUBLIC_DIRECTORY": "/nonexistent/www"], "publicDirectory (LATCHKEY_PUBLIC_DIRECTORY): folder /nonexistent/www does not exist"),
        (["LATCHKEY_PUBLIC_DIRECTORY": "index.html"], "publicDirectory (LATCHKEY_PUBLIC_DIRECTORY): HOME/index.html is a file, not a folder"),
        // The default trust anchors folder is optional, even when named; any other must exist.
        (["LATCHKEY_TRUST_ANCHORS": "Config/trust-anchors"], nil),
        (["LATCHKEY_TRUST_ANCHORS": "anchors"], "trustAnchors (LATCHKEY_TRUST_ANCHORS): folder HOME/anchors does not exist"),
        // Metadata roots are needed when a BLOB is present.
        (["LATCHKEY_METADATA_ROOTS": "/nonexistent/mds-roots"], nil),
        (["LATCHKEY_METADATA_BLOB": "blob.jwt"], "metadataRoots (default): folder HOME/Config/mds-roots does not exist"),
        (["LATCHKEY_METADATA_BLOB": "blob.jwt", "LATCHKEY_METADATA_ROOTS": "/nonexistent/mds-roots"],
         "metadataRoots (LATCHKEY_METADATA_ROOTS): folder /nonexistent/mds-roots does not exist"),
        (["LATCHKEY_METADATA_BLOB": "Config"], "metadataBLOB (LATCHKEY_METADATA_BLOB): HOME/Config is a folder, not a file"),
        (["LATCHKEY_AUTHENTICATOR_NAMES": "names.json"], "authenticatorNames (LATCHKEY_AUTHENTICATOR_NAMES): file HOME/names.json does not exist"),
        (["LATCHKEY_AUTHENTICATOR_NAMES": "Public"], "authenticatorNames (LATCHKEY_AUTHENTICATOR_NAMES): HOME/Public is a folder, not a file"),
        (["LATCHKEY_APP_ATTEST_TEST_ROOTS": "ca"], "appAttestTestRoots (LATCHKEY_APP_ATTEST_TEST_ROOTS): folder HOME/ca does not exist"),
    ] as [([String: String], String?)])
    func pathsMustNameWhatTheServerNeeds(environment: [String: String], problem: String?) throws {
        let installation = try Installation()
        try installation.write("index.html", "<p>")
        try installation.write("blob.jwt", "not checked here")
        if let problem {
            #expect(installation.problems(environment) == [problem])
        } else {
            _ = try installation.load(environment)
        }
    }

    @Test func theFoldersOfEveryInstallationMustBeThere() throws {
        let installation = try Installation(public: false, shippedRoots: false)
        #expect(installation.problems([:]) == [
            "publicDirectory (default): folder HOME/Public does not exist",
            "shippedTrustAnchors (default, under the home): folder HOME/Config/roots does not exist: the roots shipped with "
                + "Latchkey (Apple, Google) live there; is HOME the installation folder? Set LATCHKEY_HOME to it",
        ])
        let file = try temporaryFile(#"{"publicDirectory": "www"}"#)
        #expect(try Installation().problems(["LATCHKEY_CONFIG": file]) == ["publicDirectory (file \(file)): folder HOME/www does not exist"])
    }

    @Test func theseProblemsAreListedTogether() throws {
        let problems = try Installation(public: false).problems([
            "LATCHKEY_HOST": "no-such-host.invalid", "LATCHKEY_RP_ID": "10.0.0.1", "LATCHKEY_TRUST_ANCHORS": "/nonexistent/anchors",
        ])
        #expect(problems.map { $0.prefix { $0 != " " } } == ["host", "rpID", "publicDirectory", "trustAnchors"], "\(problems)")
    }

    // MARK: - Warnings

    @Test func unknownVariablesAreWarnedAboutWithTheClosestKnownOne() throws {
        let loaded = try Installation().load([
            "LATCHKEY_RPID": "example.com", "LATCHKEY_PROT": "9000", "LATCHKEY_BIN": "/x", "LATCHKEY_HOME": "/ignored-by-an-explicit-home",
            "LATCHKEY_CONFIG_FILE": "x", "PORT": "1",
            // What `eval "$(scripts/postgres start)"` exports is the scripts', not the server's: no warning.
            "LATCHKEY_POSTGRES_DIR": "/tmp/pg", "LATCHKEY_TEST_POSTGRES_URL": "postgres://x@127.0.0.1/postgres",
            // Nor is the address docs/USING.md's curl session reads.
            "LATCHKEY_URL": "http://localhost:8080",
        ])
        #expect(loaded.configuration.rpID.value == "localhost" && loaded.configuration.port == 8080, "an unknown variable sets nothing")
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

    /// Two settings a first day gets wrong without an error, which `check-config` points out: an admin listener reachable
    /// from anywhere, and an app's ID beside an RP ID no iPhone can associate with it.
    @Test func anAdminListenerOnEveryInterfaceAndAppIDsOnLocalhostAreWarnedAbout() throws {
        let installation = try Installation()
        let open = try installation.load(["LATCHKEY_ADMIN_ADDRESS": "0.0.0.0:9090"]).advice
        #expect(open.count == 1 && open[0].hasPrefix("adminAddress listens on every interface (LATCHKEY_ADMIN_ADDRESS: 0.0.0.0:9090)"))
        #expect(try installation.load(["LATCHKEY_ADMIN_ADDRESS": "127.0.0.1:9090"]).advice == [])
        let apps = try installation.load(["LATCHKEY_APPLE_APP_IDS": "ABCDE12345.com.example.app"]).advice
        #expect(try installation.load(["LATCHKEY_APPLE_APP_IDS": "ABCDE12345.com.example.app"]).warnings == [], "check-config's advice, not a warning at every start")
        #expect(apps.count == 1 && apps[0].hasPrefix("appleAppIDs is set (LATCHKEY_APPLE_APP_IDS) while rpID is localhost"))
        #expect(try installation.load(["LATCHKEY_APPLE_APP_IDS": "ABCDE12345.com.example.app", "LATCHKEY_RP_ID": "id.example",
                                       "LATCHKEY_ORIGINS": "https://id.example"]).advice == [])
    }

    @Test func appAttestTestRootsAreWarnedAbout() throws {
        let installation = try Installation()
        try installation.make("test-ca")
        let warnings = try installation.load(["LATCHKEY_APP_ATTEST_TEST_ROOTS": "test-ca"]).warnings
        #expect(warnings == ["appAttestTestRoots is set (LATCHKEY_APP_ATTEST_TEST_ROOTS): it is for tests only: App Attest keys "
            + "chaining to its roots are accepted as if Apple had attested them"])
    }
}
