// swift-tools-version:6.1
import PackageDescription

// libFuzzer targets over the WebAuthn core, one executable per input the core parses. Build and run
// them with `scripts/fuzz` (it adds `-sanitize=fuzzer,address`); FUZZING.md records the long runs.
//
// The core's own targets are declared again here over the same sources (Sources/WebAuthn, the JSON module and
// its C modules are symbolic links to the repository's), so fuzzing builds the core alone, without
// resolving the server's dependencies; they must match the root Package.swift.
let webAuthn = Target.Dependency.target(name: "WebAuthn")

let package = Package(
    name: "LatchkeyFuzz",
    platforms: [.macOS(.v15)],
    targets: [
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibCBOR", pkgConfig: "libcbor", providers: [.apt(["libcbor-dev"])]),
        .target(name: "CLatchkeyShims", dependencies: ["COpenSSL"]),
        .target(name: "LatchkeyJSON"),
        .target(name: "WebAuthn", dependencies: ["LatchkeyJSON", "COpenSSL", "CLibCBOR", "CLatchkeyShims"]),
        // libFuzzer's driver entry point, for executables that keep their own main.
        .target(name: "CFuzzerDriver"),
        // The driver, the input layouts shared by targets and seeds, and the fixed relying party.
        .target(name: "FuzzSupport", dependencies: ["CFuzzerDriver", webAuthn]),
        .executableTarget(name: "fuzz-cbor", dependencies: ["FuzzSupport", webAuthn]),
        .executableTarget(name: "fuzz-cose-key", dependencies: ["FuzzSupport", webAuthn]),
        .executableTarget(name: "fuzz-authenticator-data", dependencies: ["FuzzSupport", webAuthn]),
        .executableTarget(name: "fuzz-client-data", dependencies: ["FuzzSupport", webAuthn]),
        .executableTarget(name: "fuzz-registration", dependencies: ["FuzzSupport", webAuthn]),
        .executableTarget(name: "fuzz-assertion", dependencies: ["FuzzSupport", webAuthn]),
        // Writes every target's seed corpus from the vector files.
        .executableTarget(name: "fuzz-seeds", dependencies: ["FuzzSupport", webAuthn]),
    ]
)
