import Foundation
import HTTPTypes
import LatchkeyConfiguration
import Testing
import WebAuthn
@testable import LatchkeyServer
@testable import LatchkeyService

/// The domain association files under `/.well-known/`: each is 200 `application/json` with the
/// body its configuration says, answers HEAD, and is a JSON 404 when not configured. The origins
/// they announce are accepted in client data.
@Suite("Well-known files")
struct WellKnownRouteTests {
    /// Two signing certificate fingerprints, and the colon-separated text of each.
    static let firstKey = (0..<32).map { UInt8($0) }
    static let secondKey = (0..<32).map { UInt8(0xFF - $0) }
    static func text(_ bytes: [UInt8], lowercase: Bool = false) -> String {
        bytes.map { String(format: lowercase ? "%02x" : "%02X", $0) }.joined(separator: ":")
    }

    static let paths = [
        "/.well-known/apple-app-site-association", "/.well-known/assetlinks.json", "/.well-known/webauthn",
        "/.well-known/passkey-endpoints",
    ]

    /// A harness with every file configured.
    static func configured() throws -> RouteHarness {
        let androidApps = try [
            "com.example.app@" + text(firstKey),
            "com.example.other@" + text(secondKey),
            "com.example.app@" + text(secondKey, lowercase: true),
            "com.example.app@" + text(firstKey, lowercase: true),
        ].map(AndroidApp.init(parsing:))
        return try RouteHarness { configuration in
            configuration.appleAppIDs = ["ABCDE12345.com.example.app"]
            configuration.appleAppLinks = ["ABCDE12345.com.example.app", "FGHIJ67890.com.example.other"]
            configuration.androidApps = androidApps
            configuration.relatedOrigins = ["https://example.co.uk", "https://shop.example.de:8443"]
            configuration.passkeyEnrollURL = "https://localhost/account/passkeys/new"
            configuration.passkeyManageURL = "https://localhost/account/passkeys"
        }
    }

    /// A harness with no file configured.
    static func unconfigured() throws -> RouteHarness {
        try RouteHarness { $0.appleAppIDs = [] }
    }

    func expectJSON200(_ reply: RouteReply, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == .ok, "\(reply.status) \(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.headers[.contentType]?.hasPrefix("application/json") == true, sourceLocation: sourceLocation)
        #expect(reply.headers[.location] == nil, sourceLocation: sourceLocation)
    }

    func body(_ reply: RouteReply) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(reply.text.utf8))
    }

    @Test func appleAppSiteAssociationHasWebCredentialsAndAppLinks() async throws {
        try await Self.configured().run { client in
            let reply = try await client.send(.get, "/.well-known/apple-app-site-association")
            expectJSON200(reply)
            #expect((reply.json["webcredentials"] as? [String: Any])?["apps"] as? [String] == ["ABCDE12345.com.example.app"])
            let details = (reply.json["applinks"] as? [String: Any])?["details"] as? [[String: Any]]
            #expect(details?.count == 1)
            #expect(details?.first?["appIDs"] as? [String] == ["ABCDE12345.com.example.app", "FGHIJ67890.com.example.other"])
            #expect(details?.first?["components"] as? [[String: String]] == [["/": "*"]])
        }
    }

    @Test func assetLinksHaveOneStatementPerPackageWithEveryFingerprint() async throws {
        try await Self.configured().run { client in
            let reply = try await client.send(.get, "/.well-known/assetlinks.json")
            expectJSON200(reply)
            let statements = try #require(body(reply) as? [[String: Any]], "a JSON array: \(reply.text)")
            #expect(statements.count == 2)
            let relations = ["delegate_permission/common.get_login_creds", "delegate_permission/common.handle_all_urls"]
            for statement in statements {
                #expect(Set(statement["relation"] as? [String] ?? []) == Set(relations))
                #expect((statement["target"] as? [String: Any])?["namespace"] as? String == "android_app")
            }
            let targets = statements.compactMap { $0["target"] as? [String: Any] }
            #expect(targets.map { $0["package_name"] as? String } == ["com.example.app", "com.example.other"])
            // Upper case, in the order configured, a fingerprint listed twice given once.
            #expect(targets.first?["sha256_cert_fingerprints"] as? [String] == [Self.text(Self.firstKey), Self.text(Self.secondKey)])
            #expect(targets.last?["sha256_cert_fingerprints"] as? [String] == [Self.text(Self.secondKey)])
        }
    }

    @Test func relatedOriginsAreListed() async throws {
        try await Self.configured().run { client in
            let reply = try await client.send(.get, "/.well-known/webauthn")
            expectJSON200(reply)
            #expect(reply.json.keys.sorted() == ["origins"])
            #expect(reply.json["origins"] as? [String] == ["https://example.co.uk", "https://shop.example.de:8443"])
        }
    }

    @Test func passkeyEndpointsNameEnrollAndManage() async throws {
        try await Self.configured().run { client in
            let reply = try await client.send(.get, "/.well-known/passkey-endpoints")
            expectJSON200(reply)
            #expect(reply.json as? [String: String]
                == ["enroll": "https://localhost/account/passkeys/new", "manage": "https://localhost/account/passkeys"])
        }
        // Only what is configured is listed.
        try await RouteHarness { $0.passkeyManageURL = "https://localhost/account" }.run { client in
            let reply = try await client.send(.get, "/.well-known/passkey-endpoints")
            expectJSON200(reply)
            #expect(reply.json as? [String: String] == ["manage": "https://localhost/account"])
        }
    }

    @Test(arguments: paths)
    func headAnswersLikeGetWithoutABody(path: String) async throws {
        try await Self.configured().run { client in
            let get = try await client.send(.get, path)
            let head = try await client.send(.head, path)
            #expect(head.status == .ok)
            #expect(head.headers[.contentType] == get.headers[.contentType])
            #expect(head.text.isEmpty)
        }
        try await Self.unconfigured().run { client in
            let head = try await client.send(.head, path)
            #expect(head.status == .notFound && head.text.isEmpty)
        }
    }

    @Test(arguments: zip(paths, ["LATCHKEY_APPLE_APP_IDS", "LATCHKEY_ANDROID_APPS", "LATCHKEY_RELATED_ORIGINS", "LATCHKEY_PASSKEY_ENROLL_URL"]))
    func anUnconfiguredFileIsAJSON404NamingItsVariable(path: String, variable: String) async throws {
        try await Self.unconfigured().run { client in
            let reply = try await client.send(.get, path)
            #expect(reply.status == .notFound && reply.isFailure, "\(reply.text)")
            #expect(reply.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(reply.errorMessage.contains(path) && reply.errorMessage.contains(variable), "\(reply.errorMessage)")
        }
    }

    // MARK: - Origins the files announce

    @Test func anAndroidAppOriginFromAConfiguredFingerprintRegistersAndSignsIn() async throws {
        let harness = try Self.configured()
        try await harness.run { client in
            for key in [Self.firstKey, Self.secondKey] {
                let app = TestAuthenticator(origin: "android:apk-key-hash:" + Base64URL.encode(key))
                let username = "android-\(key[0])"
                let registered = try await client.register(username, with: app)
                #expect(registered.isOK, "\(registered.text)")
                let signedIn = try await client.signIn(username, with: app)
                #expect(signedIn.isOK, "\(signedIn.text)")
            }
        }
    }

    @Test func anAndroidAppOriginFromAnotherFingerprintIsRefused() async throws {
        let unlisted = "android:apk-key-hash:" + Base64URL.encode([UInt8](repeating: 7, count: 32))
        try await Self.configured().run { client in
            let reply = try await client.register("android-stranger", with: TestAuthenticator(origin: unlisted))
            #expect(reply.status == .badRequest && reply.errorMessage.contains(unlisted), "\(reply.text)")
        }
        // Without androidApps, not even the configured fingerprint's origin is accepted.
        let listed = "android:apk-key-hash:" + Base64URL.encode(Self.firstKey)
        try await Self.unconfigured().run { client in
            let reply = try await client.register("android-unconfigured", with: TestAuthenticator(origin: listed))
            #expect(reply.status == .badRequest && reply.errorMessage.contains(listed), "\(reply.text)")
        }
    }

    @Test func aRelatedOriginIsAcceptedAndAnUnrelatedOneRefused() async throws {
        try await Self.configured().run { client in
            let related = TestAuthenticator(origin: "https://shop.example.de:8443")
            let registered = try await client.register("related-user", with: related)
            #expect(registered.isOK, "\(registered.text)")
            #expect(try await client.signIn("related-user", with: related).isOK)

            let unrelated = try await client.register("unrelated-user", with: TestAuthenticator(origin: "https://shop.example.de"))
            #expect(unrelated.status == .badRequest && unrelated.errorMessage.contains("https://shop.example.de"), "\(unrelated.text)")
        }
    }

    /// What `check-config` prints and `serve` answers: only the configured files have a body.
    @Test func theWellKnownFilesFollowTheConfiguration() throws {
        var configuration = LatchkeyConfiguration()
        configuration.androidApps = [try AndroidApp(parsing: "com.example.app@\(Self.text(Self.firstKey, lowercase: true))")]
        configuration.passkeyEnrollURL = "https://localhost/new"
        let files = configuration.wellKnownFiles
        #expect(files.map(\.path) == [
            "/.well-known/apple-app-site-association", "/.well-known/assetlinks.json", "/.well-known/webauthn",
            "/.well-known/passkey-endpoints",
        ])
        #expect(files.map { $0.body != nil } == [false, true, false, true])
        let assetLinks = try #require(files[1].body.map { String(decoding: $0, as: UTF8.self) })
        #expect(assetLinks == #"[{"relation":["delegate_permission/common.get_login_creds","delegate_permission/common.handle_all_urls"],"target":{"namespace":"android_app","package_name":"com.example.app","sha256_cert_fingerprints":["\#(Self.text(Self.firstKey))"]}}]"#)
        #expect(files[3].body.map { String(decoding: $0, as: UTF8.self) } == #"{"enroll":"https://localhost/new"}"#)
        #expect(files[3].prettyBody?.contains("\n") == true)
    }
}
