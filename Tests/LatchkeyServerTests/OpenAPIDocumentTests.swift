import Foundation
import HTTPTypes
import LatchkeyServer
@testable import LatchkeyService
import LatchkeyStore
import Testing

/// `Public/openapi.json` describes exactly the routes the router serves: every operation it
/// documents is a route, and every route is documented, so the document cannot drift from the code.
@Suite("OpenAPI document")
struct OpenAPIDocumentTests {
    /// Paths the page's folder serves as files rather than routes, with their content type.
    static let files = ["/": "text/html", "/openapi.json": "application/json"]

    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `METHOD /path` for every operation of the document, path templates as the router writes them.
    static func documentedOperations() throws -> Set<String> {
        let data = try Data(contentsOf: repository.appendingPathComponent("Public/openapi.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var operations = Set<String>()
        for (path, item) in paths {
            for method in item.keys where method != "parameters" && method != "summary" && method != "description" {
                operations.insert("\(method.uppercased()) \(path)")
            }
        }
        return operations
    }

    /// One version: the document's is the server's (`latchkey --version`), and the changelog has it.
    @Test func theDocumentAndTheChangelogCarryTheServersVersion() throws {
        let data = try Data(contentsOf: Self.repository.appendingPathComponent("Public/openapi.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let info = try #require(document["info"] as? [String: Any])
        #expect(info["version"] as? String == LatchkeyServer.version)
        let changelog = try String(contentsOf: Self.repository.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        #expect(changelog.contains("\n## \(LatchkeyServer.version) "), "CHANGELOG.md has a section for \(LatchkeyServer.version)")
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedOperationIsServed() async throws {
        // Every optional route on: metrics on the public listener need a token, App Attest an app.
        let harness = try RouteHarness {
            $0.metricsToken = "scrape-token"
            $0.appleAppIDs = ["ABCDE12345.com.example.app"]
            $0.appAttest = .optional
        }
        let site = try harness.site()
        let routes = site.routes.map { (method: HTTPRequest.Method($0.method.rawValue) ?? .get, path: $0.template) }
        let documented = try Self.documentedOperations()

        let served = try await harness.run(site) { client in
            var served = Set<String>()
            for route in routes {
                // The 405 routes that answer wrong methods on known paths, and OPTIONS, are not operations.
                let concrete = route.path.replacingOccurrences(of: #"\{[^}/]+\}"#, with: "AAAA", options: .regularExpression)
                let reply = try await client.send(route.method, concrete)
                if reply.status != .methodNotAllowed, route.method != .options { served.insert("\(route.method) \(route.path)") }
            }
            for (path, contentType) in Self.files {
                let reply = try await client.send(.get, path)
                #expect(reply.status == .ok, "GET \(path)")
                #expect(reply.headers[.contentType]?.hasPrefix(contentType) == true, "GET \(path): \(reply.headers[.contentType] ?? "")")
                served.insert("GET \(path)")
            }
            return served
        }
        #expect(documented.subtracting(served).sorted() == [], "documented in Public/openapi.json but not served")
        #expect(served.subtracting(documented).sorted() == [], "served but missing from Public/openapi.json")
        #expect(served.count > 15)
    }

    @Test func theDocumentIsServedAsJSON() async throws {
        try await RouteHarness().run { client in
            let reply = try await client.send(.get, "/openapi.json")
            #expect(reply.status == .ok)
            #expect(reply.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(reply.json["openapi"] as? String == "3.1.0")
        }
    }

    /// The `type` filter of the event lists admits every event type the server writes, so clients
    /// (and the schema-driven tests) may ask for each.
    @Test func theEventTypeFilterAdmitsEveryEventType() throws {
        let data = try Data(contentsOf: Self.repository.appendingPathComponent("Public/openapi.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let filters = paths.values.flatMap(\.values).compactMap { ($0 as? [String: Any])?["parameters"] as? [[String: Any]] }
            .joined().filter { $0["name"] as? String == "type" }.compactMap { ($0["schema"] as? [String: Any])?["pattern"] as? String }
        #expect(!filters.isEmpty)
        for pattern in filters {
            let expression = try NSRegularExpression(pattern: pattern)
            for type in SecurityEventType.allCases {
                let text = type.rawValue
                #expect(expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil, "\(type.rawValue)")
            }
        }
    }
}
