// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Latchkey",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "latchkey", targets: ["latchkey"]),
        .library(name: "WebAuthn", targets: ["WebAuthn"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0", traits: ["JSON"]),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        // C libraries, through pkg-config.
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibCBOR", pkgConfig: "libcbor", providers: [.apt(["libcbor-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The C Swift cannot write against OpenSSL (macros, variadic and OSSL_PARAM calls, BIO
        // plumbing): public keys from their parts, chain checks, key generation, PEM, signing.
        .target(name: "CLatchkeyShims", dependencies: ["COpenSSL"]),
        // Test-only OpenSSL helpers: certificates the tests issue.
        .target(name: "CLatchkeyTestSupport", dependencies: ["COpenSSL", "CLatchkeyShims"]),

        // JSON read strictly (one meaning for every text) and written in a fixed order: request bodies, client data,
        // replies, configuration, tokens. No dependencies.
        .target(name: "LatchkeyJSON"),
        // The WebAuthn core: CBOR, COSE, crypto, ceremonies, attestation. No HTTP, no storage.
        .target(name: "WebAuthn", dependencies: ["LatchkeyJSON", "COpenSSL", "CLibCBOR", "CLatchkeyShims"]),
        // Sign-in tokens: ES256 JSON Web Tokens and the key set that verifies them, through OpenSSL.
        .target(name: "LatchkeyTokens", dependencies: ["WebAuthn", "LatchkeyJSON", "COpenSSL", "CLatchkeyShims"]),
        // The store interface: users, credentials, pending challenges and sessions, as records.
        .target(
            name: "LatchkeyStore",
            dependencies: ["WebAuthn", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
        ),
        // What the SQL backends share: the column lists their row readers expect.
        .target(name: "LatchkeyStoreSQL"),
        // The embedded default store: one SQLite file.
        .target(
            name: "LatchkeyStoreSQLite",
            dependencies: [
                "LatchkeyStore", "LatchkeyStoreSQL", "WebAuthn", "CSQLite",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The shared store: a PostgreSQL database that several Latchkey instances use at once.
        .target(
            name: "LatchkeyStorePostgres",
            dependencies: [
                "LatchkeyStore", "LatchkeyStoreSQL", "WebAuthn",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // The pool's own errors (its circuit breaker), which postgres-nio passes on as they are.
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The configuration: its keys, read through swift-configuration (environment over file over
        // defaults), their checks, the home relative paths resolve against. No HTTP.
        .target(
            name: "LatchkeyConfiguration",
            dependencies: [
                "WebAuthn", "LatchkeyJSON", .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The rules of one relying party, without HTTP: the ceremonies, sessions, device keys, App Attest,
        // the admin use cases, events, tokens, policy and the well-known documents, each one call with
        // typed inputs and outcomes. Knows the store only by its interface; never imports NIO or HTTP.
        .target(
            name: "LatchkeyService",
            dependencies: [
                "WebAuthn", "LatchkeyJSON", "LatchkeyStore", "LatchkeyTokens", "LatchkeyConfiguration",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The HTTP transport on SwiftNIO's HTTP/1.1 pipeline: listeners, the request handler, the route table, the
        // steps around every route, routes that decode, make one service call and encode; wire models, cookies.
        .target(
            name: "LatchkeyServer",
            dependencies: [
                "WebAuthn", "LatchkeyJSON", "LatchkeyStore", "LatchkeyTokens", "LatchkeyConfiguration", "LatchkeyService",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // `latchkey authenticator`: a software passkey provider for shells and tests, keys in a file.
        .target(name: "LatchkeyAuthenticator", dependencies: ["WebAuthn", "LatchkeyJSON", "COpenSSL", "CLatchkeyShims"]),
        .executableTarget(
            name: "latchkey",
            dependencies: [
                "LatchkeyServer", "LatchkeyService", "LatchkeyConfiguration", "LatchkeyStore", "LatchkeyStoreSQLite", "LatchkeyStorePostgres",
                "WebAuthn", "LatchkeyJSON", "LatchkeyAuthenticator", "LatchkeyTokens",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // Verification throughput beside the bare OpenSSL verify: swift run -c release latchkey-benchmarks
        .executableTarget(name: "latchkey-benchmarks", dependencies: ["WebAuthn", "LatchkeyJSON", "LatchkeyTokens", "COpenSSL"]),

        .testTarget(name: "LatchkeyJSONTests", dependencies: ["LatchkeyJSON"]),
        // Signing, reading and refusing tokens; keys as PEM and JWK.
        .testTarget(name: "LatchkeyTokensTests", dependencies: ["LatchkeyTokens", "WebAuthn"]),
        .testTarget(name: "WebAuthnTests", dependencies: ["WebAuthn", "LatchkeyJSON", "CLatchkeyTestSupport"]),
        // What the software authenticator makes, checked by the core's own verifiers.
        .testTarget(name: "LatchkeyAuthenticatorTests", dependencies: ["LatchkeyAuthenticator", "WebAuthn"]),
        // The store contract suite, run against every backend.
        .testTarget(
            name: "LatchkeyStoreTests",
            dependencies: [
                "LatchkeyStore", "LatchkeyStoreSQLite", "LatchkeyStorePostgres", "WebAuthn",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
            ]
        ),
        // Loading, precedence, every check and message, redaction, the home, the generated key table.
        .testTarget(
            name: "LatchkeyConfigurationTests",
            dependencies: ["LatchkeyConfiguration", "LatchkeyJSON", "WebAuthn", .product(name: "Configuration", package: "swift-configuration")]
        ),
        // The service's rules called directly, over a real SQLite store, without HTTP.
        .testTarget(
            name: "LatchkeyServiceTests",
            dependencies: [
                "LatchkeyService", "LatchkeyStore", "LatchkeyStoreSQLite", "LatchkeyConfiguration", "LatchkeyAuthenticator", "LatchkeyJSON",
                "LatchkeyTokens", "WebAuthn",
            ]
        ),
        .testTarget(
            name: "LatchkeyServerTests",
            dependencies: [
                "LatchkeyServer", "LatchkeyService", "LatchkeyConfiguration", "LatchkeyStore", "LatchkeyStoreSQLite", "LatchkeyTokens", "LatchkeyJSON", "WebAuthn",
                "LatchkeyAuthenticator",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
    ]
)
