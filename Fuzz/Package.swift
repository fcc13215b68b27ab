// swift-tools-version:6.1
import PackageDescription

// libFuzzer targets over the WebAuthn core, one executable per input the core parses. Build and run
// them with `scripts/fuzz` (it adds `-sanitize=fuzzer,address`); FUZZING.md records the long runs.
let webAuthn = Target.Dependency.product(name: "WebAuthn", package: "Latchkey")

let package = Package(
    name: "LatchkeyFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Latchkey", path: "..")],
    targets: [
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
