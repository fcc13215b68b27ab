// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Latchkey",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "latchkey", targets: ["latchkey"]),
        .library(name: "WebAuthn", targets: ["WebAuthn"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        // C libraries, through pkg-config.
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibCBOR", pkgConfig: "libcbor", providers: [.apt(["libcbor-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The few C lines Swift cannot import: OpenSSL macros and OSSL_PARAM builders.
        .target(name: "CLatchkeyShims", dependencies: ["COpenSSL"]),
        // Test-only OpenSSL helpers (key generation, certificate issuing, signing); used by WebAuthnTests only.
        .target(name: "CLatchkeyTestSupport", dependencies: ["COpenSSL"]),

        // The WebAuthn core: CBOR, COSE, crypto, ceremonies, attestation. No HTTP, no storage.
        .target(name: "WebAuthn", dependencies: ["COpenSSL", "CLibCBOR", "CLatchkeyShims"]),
        // Users, credentials, pending challenges and sessions behind one interface; SQLite inside.
        .target(name: "LatchkeyStore", dependencies: ["CSQLite"]),
        // The Hummingbird application: routes, JSON bodies, sessions, well-known files.
        .target(
            name: "LatchkeyServer",
            dependencies: [
                "WebAuthn", "LatchkeyStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .executableTarget(
            name: "latchkey",
            dependencies: [
                "LatchkeyServer", "WebAuthn",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        // Verification throughput on real vectors: swift run -c release latchkey-benchmarks
        .executableTarget(name: "latchkey-benchmarks", dependencies: ["WebAuthn", "COpenSSL"]),

        .testTarget(name: "WebAuthnTests", dependencies: ["WebAuthn", "CLatchkeyTestSupport"]),
        .testTarget(name: "LatchkeyStoreTests", dependencies: ["LatchkeyStore"]),
        .testTarget(name: "LatchkeyServerTests", dependencies: ["LatchkeyServer", "WebAuthn"]),
    ]
)
