import Foundation
import HTTPTypes
import Testing
import WebAuthn

/// Methods, the cross-site guard, well-known files, static files and headers.
@Suite("HTTP routes")
struct HTTPRouteTests {
    @Test(arguments: [HTTPRequest.Method.post, .put, .patch, .delete])
    func everyStateChangingMethodFromAnotherSiteIsRefused(method: HTTPRequest.Method) async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let foreign = try await client.send(method, "/session/logout", raw: "{}", headers: [.origin: "https://evil.example"])
            #expect(foreign.status == .forbidden && foreign.errorMessage.contains("evil.example"), "\(method): \(foreign.text)")
            let fetchSite = try await client.send(method, "/session/logout", raw: "{}", headers: [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"])
            #expect(fetchSite.status == .forbidden, "\(method): \(fetchSite.text)")
            // In any case, and behind another copy of the header (found by a black-box probe).
            let fetchSiteName = try #require(HTTPField.Name("Sec-Fetch-Site"))
            for fields in [[HTTPField(name: fetchSiteName, value: "CROSS-SITE")],
                           [HTTPField(name: fetchSiteName, value: "same-origin"), HTTPField(name: fetchSiteName, value: "cross-site")]] {
                let odd = try await client.send(method, "/session/logout", raw: "{}", headers: HTTPFields(fields))
                #expect(odd.status == .forbidden, "\(method) \(fields): \(odd.text)")
            }
        }
    }

    /// A form on our own page posts with `Origin: null` (under `Referrer-Policy: no-referrer`): the browser's
    /// `Sec-Fetch-Site` says it is ours. A null origin from anywhere else, or saying nothing more, is refused.
    @Test func aNullOriginPassesOnlyWhenTheBrowserSaysTheFormIsOurs() async throws {
        let harness = try RouteHarness()
        let fetchSite = try #require(HTTPField.Name("Sec-Fetch-Site"))
        try await harness.run { client in
            let ours = try await client.send(.post, "/assertion/options", raw: "{}", headers: [.origin: "null", fetchSite: "same-origin"])
            #expect(ours.isOK, "\(ours.text)")
            for site in [nil, "cross-site", "same-site", "none"] {
                var headers: HTTPFields = [.origin: "null"]
                if let site { headers[fetchSite] = site }
                let reply = try await client.send(.post, "/assertion/options", raw: "{}", headers: headers)
                #expect(reply.status == .forbidden, "Sec-Fetch-Site \(site ?? "absent"): \(reply.text)")
            }
            let mixed = try await client.send(.post, "/assertion/options", raw: "{}", headers: HTTPFields([
                HTTPField(name: .origin, value: "null"), HTTPField(name: fetchSite, value: "same-origin"),
                HTTPField(name: fetchSite, value: "cross-site"),
            ]))
            #expect(mixed.status == .forbidden, "\(mixed.text)")
        }
    }

    @Test func theRelyingPartysOwnOriginPasses() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let reply = try await client.send(.post, "/assertion/options", raw: "{}", headers: [.origin: "http://localhost:8080"])
            #expect(reply.isOK, "\(reply.text)")
        }
    }

    @Test func aRelatedOriginOnAnotherSitePassesTheGuard() async throws {
        let harness = try RouteHarness { $0.relatedOrigins = ["https://shop.example"] }
        try await harness.run { client in
            let related = try await client.send(.post, "/assertion/options", raw: "{}", headers: [
                .origin: "https://shop.example", HTTPField.Name("Sec-Fetch-Site")!: "cross-site",
            ])
            #expect(related.isOK, "\(related.text)")
            #expect(related.headers[.accessControlAllowOrigin] == nil, "no CORS unless corsOrigins names it")
        }
    }

    @Test func corsAnswersTheConfiguredOriginsOnly() async throws {
        let harness = try RouteHarness {
            $0.relatedOrigins = ["https://shop.example", "https://other.example"]
            $0.corsOrigins = ["https://shop.example"]
        }
        try await harness.run { client in
            let preflightHeaders: HTTPFields = [.accessControlRequestMethod: "PATCH", .accessControlRequestHeaders: "content-type"]
            var asked = preflightHeaders
            asked[.origin] = "https://shop.example"
            let preflight = try await client.send(.options, "/credentials/AAAA", headers: asked)
            #expect(preflight.status == .noContent)
            #expect(preflight.headers[.accessControlAllowOrigin] == "https://shop.example")
            #expect(preflight.headers[.accessControlAllowCredentials] == "true")
            #expect(preflight.headers[.accessControlAllowMethods]?.contains("PATCH") == true)
            #expect(preflight.headers[.accessControlAllowHeaders]?.contains("Authorization") == true)

            // Replies, failures included, name the origin; the rest of the reply is untouched.
            let options = try await client.send(.post, "/assertion/options", raw: "{}", headers: [.origin: "https://shop.example"])
            #expect(options.isOK && options.headers[.accessControlAllowOrigin] == "https://shop.example")
            #expect(options.headers[.accessControlExposeHeaders]?.contains("Retry-After") == true)
            let signedOut = try await client.send(.get, "/session", headers: [.origin: "https://shop.example"])
            #expect(signedOut.status == .unauthorized && signedOut.isFailure)
            #expect(signedOut.headers[.accessControlAllowOrigin] == "https://shop.example")
            #expect(signedOut.headers[values: .vary].contains("Origin"))

            // Another of the relying party's origins, a foreign one and the opaque "null" get none.
            for origin in ["https://other.example", "https://evil.example", "null"] {
                var foreign = preflightHeaders
                foreign[.origin] = origin
                let refused = try await client.send(.options, "/credentials/AAAA", headers: foreign)
                #expect(refused.status == .forbidden && refused.headers[.accessControlAllowOrigin] == nil, "\(origin)")
                #expect(refused.errorMessage.contains("corsOrigins"), "\(origin): \(refused.text)")
                let read = try await client.send(.get, "/session", headers: [.origin: origin])
                #expect(read.headers[.accessControlAllowOrigin] == nil && read.headers[.accessControlAllowCredentials] == nil, "\(origin)")
                #expect(read.headers[values: .vary].contains("Origin"), "caches must keep the replies apart")
            }
            // So does a reply to no origin at all, such as a well-known file a CDN may cache (found by a black-box probe).
            let wellKnown = try await client.send(.get, "/.well-known/webauthn")
            #expect(wellKnown.status == .ok && wellKnown.headers[values: .vary].contains("Origin"), "\(wellKnown.status) \(wellKnown.headers)")
        }
    }

    @Test func getOnACeremonyEndpointIs405WithAllow() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let reply = try await client.send(.get, "/assertion/options")
            #expect(reply.status == .methodNotAllowed && reply.isFailure)
            #expect(reply.headers[.allow] == "POST, OPTIONS")
        }
    }

    @Test(arguments: [
        ("/attestation/options", [HTTPRequest.Method.get, .put, .delete, .patch, .head], "POST, OPTIONS"),
        ("/attestation/result", [.get, .put, .trace, .query], "POST, OPTIONS"), ("/assertion/options", [.get, .delete], "POST, OPTIONS"),
        ("/assertion/result", [.put, .patch], "POST, OPTIONS"), ("/session", [.post, .put, .patch, .trace], "DELETE, GET, HEAD, OPTIONS"),
        ("/session/logout", [.get, .delete], "POST, OPTIONS"), ("/credentials", [.post, .delete, .put], "GET, HEAD, OPTIONS"),
        ("/credentials/AAAA", [.get, .post, .put], "DELETE, PATCH, OPTIONS"), ("/account", [.get, .post], "DELETE, OPTIONS"),
        ("/.well-known/apple-app-site-association", [.post, .put, .delete], "GET, HEAD, OPTIONS"),
        ("/", [.post, .put, .delete, .patch, .trace], "GET, HEAD"), ("/app.js", [.post, .delete], "GET, HEAD"),
    ])
    func everyWrongMethodOnAKnownPathIs405WithAllow(path: String, methods: [HTTPRequest.Method], allow: String) async throws {
        try await RouteHarness().run { client in
            for method in methods {
                let reply = try await client.send(method, path, headers: [.origin: "http://localhost:8080"])
                #expect(reply.status == .methodNotAllowed, "\(method) \(path): \(reply.status)")
                #expect(reply.headers[.allow] == allow, "\(method) \(path)")
                if method != .head { #expect(reply.isFailure, "\(method) \(path): \(reply.text)") }
            }
            #expect(try await client.send(.get, "/no/such/path").status == .notFound, "unknown paths stay 404")
        }
    }

    /// OPTIONS without CORS says what a known path takes; an unknown path stays 404.
    @Test(arguments: [
        ("/attestation/options", "POST, OPTIONS"), ("/session", "DELETE, GET, HEAD, OPTIONS"),
        ("/credentials/AAAA", "DELETE, PATCH, OPTIONS"), ("/admin/v1/users", "GET, POST, HEAD, OPTIONS"),
    ])
    func optionsOnAKnownPathListsItsMethods(path: String, allow: String) async throws {
        try await RouteHarness().run { client in
            let reply = try await client.send(.options, path)
            #expect(reply.status == .noContent && reply.text.isEmpty, "\(path): \(reply.status)")
            #expect(reply.headers[.allow] == allow, "\(path)")
            #expect(try await client.send(.options, "/no/such/path").status == .notFound)
        }
    }

    @Test func headIsAnsweredWhereverGetIs() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let file = try await client.send(.head, "/.well-known/apple-app-site-association")
            #expect(file.status == .ok && file.text.isEmpty)
            #expect(file.headers[.contentType]?.hasPrefix("application/json") == true)
            let registered = try await client.register("nora", with: TestAuthenticator())
            let bearer: HTTPFields = [.authorization: "Bearer \(registered.json["sessionToken"] as? String ?? "")"]
            for path in ["/session", "/credentials"] {
                let reply = try await client.send(.head, path, headers: bearer)
                #expect(reply.status == .ok && reply.text.isEmpty, "HEAD \(path): \(reply.status)")
            }
            #expect(try await client.send(.head, "/session").status == .unauthorized)
            #expect(try await client.send(.head, "/").status == .ok, "static files too")
        }
    }

    @Test func levelThreeMembersArePassedThrough() async throws {
        try await RouteHarness().run { client in
            let creation = try await client.post("/attestation/options", [
                "username": "olga", "hints": ["security-key", "hybrid"], "attestationFormats": ["packed"],
            ])
            #expect(creation.json["hints"] as? [String] == ["security-key", "hybrid"])
            #expect(creation.json["attestationFormats"] as? [String] == ["packed"])
            let request = try await client.post("/assertion/options", ["hints": ["client-device"]])
            #expect(request.json["hints"] as? [String] == ["client-device"])
            let plain = try await client.post("/assertion/options", [:])
            #expect(plain.json["hints"] == nil, "absent when not asked for")
            let bad = try await client.post("/assertion/options", ["hints": "hybrid"])
            #expect(bad.status == .badRequest && bad.errorMessage.contains("hints"), "\(bad.text)")
        }
    }

    @Test func appleAppSiteAssociationListsTheConfiguredApps() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let reply = try await client.send(.get, "/.well-known/apple-app-site-association")
            #expect(reply.status == .ok)
            #expect(reply.headers[.contentType]?.hasPrefix("application/json") == true)
            let apps = (reply.json["webcredentials"] as? [String: Any])?["apps"] as? [String]
            #expect(apps == ["ABCDE12345.com.example.app"])
            #expect(reply.json["applinks"] == nil)
        }
    }

    @Test func thePageIsServedWithSecurityHeaders() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let reply = try await client.send(.get, "/")
            #expect(reply.status == .ok && reply.text.contains("<html"))
            #expect(reply.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
            #expect(reply.headers[.xContentTypeOptions] == "nosniff")
            #expect(reply.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
            #expect(reply.headers[HTTPField.Name("Permissions-Policy")!]?.contains("publickey-credentials-get=(self)") == true)
            #expect(reply.headers[.strictTransportSecurity] == nil, "not over http origins")
        }
    }

    @Test func httpsOriginsAddStrictTransportSecurity() async throws {
        let rpID = try RelyingPartyID(parsing: "example.com")
        let harness = try RouteHarness {
            $0.rpID = rpID
            $0.origins = ["https://example.com"]
        }
        try await harness.run { client in
            for path in ["/", "/session", "/no/such/thing"] {
                let reply = try await client.send(.get, path)
                #expect(reply.headers[.strictTransportSecurity] == "max-age=63072000", "\(path)")
            }
        }
    }

    @Test func anUnknownPathIsAJSON404() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let reply = try await client.send(.get, "/no/such/thing")
            #expect(reply.status == .notFound && reply.isFailure)
        }
    }

    @Test func signedOutSessionIs401() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let reply = try await client.send(.get, "/session", headers: [.authorization: "Bearer " + String(repeating: "A", count: 43)])
            #expect(reply.status == .unauthorized && reply.errorMessage == "not signed in")
        }
    }
}
