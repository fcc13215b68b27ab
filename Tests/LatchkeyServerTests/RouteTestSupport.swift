import Foundation
import HTTPTypes
import LatchkeyConfiguration
@testable import LatchkeyServer
@testable import LatchkeyService
import LatchkeyStore
import LatchkeyStoreSQLite
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus
import Testing
import WebAuthn

/// The Latchkey server over a real SQLite store in a temporary folder, served on a loopback port in process and
/// driven through a plain SwiftNIO HTTP/1.1 client, one connection per request.
struct RouteHarness {
    let configuration: LatchkeyConfiguration
    let store: SQLiteStore
    /// The provider names shipped in `Config/`.
    let names: AuthenticatorNames
    /// Where this harness's Latchkey metrics go (not the process-wide metrics system).
    let metricsRegistry = PrometheusCollectorRegistry()
    let metrics: LatchkeyMetrics
    /// The roots App Attest chains may end in (a stand-in's CA).
    let appAttestRoots: [X509Certificate]
    /// The rate limits' buckets: with time held still, a test's requests draw on them however slowly they run.
    let limits: ClientLimits

    /// `timeStandsStill`: the rate limits' buckets never refill, so a test of them does not depend on how fast its
    /// requests are served.
    init(
        conformanceMode: Bool = false, appAttestRoots: [X509Certificate] = [], timeStandsStill: Bool = false,
        configure: (inout LatchkeyConfiguration) -> Void = { _ in }
    ) throws {
        self.appAttestRoots = appAttestRoots
        limits = timeStandsStill ? ClientLimits(clock: { 1_000 }) : ClientLimits()
        var configuration = LatchkeyConfiguration()
        configuration.conformanceMode = conformanceMode
        configuration.appleAppIDs = ["ABCDE12345.com.example.app"]
        let repository = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        configuration.publicDirectory = repository.appendingPathComponent("Public").path
        configuration.authenticatorNames = repository.appendingPathComponent("Config/passkey-provider-aaguids.json").path
        configure(&configuration)
        self.configuration = configuration
        names = try AuthenticatorNames.load(configuration, metadata: nil)
        metrics = LatchkeyMetrics(factory: PrometheusMetricsFactory.latchkey(registry: metricsRegistry))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-routes-\(UUID().uuidString)")
        store = try SQLiteStore(path: folder.appendingPathComponent("latchkey.sqlite").path)
    }

    /// The main listener's site, as `LatchkeyServer.site` builds it for this configuration.
    func site(logger: Logger = RouteHarness.logger) throws -> Site {
        let relyingParties = try RelyingParties(
            configuration: configuration, store: store, attestationTrust: AttestationTrust(policy: configuration.attestation),
            appAttestRoots: appAttestRoots, names: names, metrics: metrics, limits: limits)
        return try LatchkeyServer.site(service: relyingParties.shared, metricsRegistry: metricsRegistry, tenants: relyingParties, logger: logger)
    }

    static var logger: Logger {
        var logger = Logger(label: "latchkey-route-tests")
        logger.logLevel = .warning
        return logger
    }

    /// Runs `body` with a client of the application.
    func run<Value: Sendable>(_ body: @Sendable (RouteClient) async throws -> Value) async throws -> Value {
        try await run(site(), body)
    }

    /// Runs `body` with a client of `site`, served on a loopback port while it runs.
    func run<Value: Sendable>(_ site: Site, _ body: @Sendable (RouteClient) async throws -> Value) async throws -> Value {
        try await site.serve(logger: Self.logger) { address in try await body(RouteClient(address: address)) }
    }
}

/// A reply as the tests read it: status, headers and the JSON body as a dictionary.
struct RouteReply: Sendable {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let text: String

    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    var errorMessage: String { json["errorMessage"] as? String ?? "" }
    var isOK: Bool { status == .ok && json["status"] as? String == "ok" }
    var isFailure: Bool { json["status"] as? String == "failed" && !errorMessage.isEmpty }
}

/// Sends requests to the server, each on a connection of its own.
struct RouteClient: Sendable {
    let address: SocketAddress

    func send(
        _ method: HTTPRequest.Method, _ path: String, json: [String: Any]? = nil, raw: String? = nil,
        headers: HTTPFields = [:]
    ) async throws -> RouteReply {
        var fields = headers
        var body: ByteBuffer?
        if let json {
            body = ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json))
        } else if let raw {
            body = ByteBuffer(string: raw)
        }
        if body != nil, fields[.contentType] == nil { fields[.contentType] = "application/json" }
        return try await exchange(method, path, headers: fields, body: body)
    }

    /// Writes one request on a new connection and reads its reply to the end.
    private func exchange(_ method: HTTPRequest.Method, _ path: String, headers fields: HTTPFields, body: ByteBuffer?) async throws -> RouteReply {
        var headers = HTTPHeaders([("Host", "localhost")])
        for field in fields { headers.add(name: field.name.rawName, value: field.value) }
        // Without a length NIO's encoder would frame the request as chunked.
        headers.replaceOrAdd(name: "Content-Length", value: String(body?.readableBytes ?? 0))
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(to: address) { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHTTPClientHandlers()
                return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
            }
        }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(.head(HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method.rawValue), uri: path, headers: headers)))
            if let body { try await outbound.write(.body(.byteBuffer(body))) }
            try await outbound.write(.end(nil))
            var status = HTTPResponse.Status.internalServerError
            var replyHeaders = HTTPFields()
            var text = ByteBuffer()
            for try await part in inbound {
                switch part {
                case .head(let head):
                    status = HTTPResponse.Status(code: Int(head.status.code))
                    for (name, value) in head.headers {
                        if let fieldName = HTTPField.Name(name) { replyHeaders.append(HTTPField(name: fieldName, value: value)) }
                    }
                case .body(var bytes):
                    text.writeBuffer(&bytes)
                case .end:
                    return RouteReply(status: status, headers: replyHeaders, text: String(buffer: text))
                }
            }
            throw ChannelError.eof
        }
    }

    func post(_ path: String, _ json: [String: Any], bearer: String? = nil) async throws -> RouteReply {
        var headers: HTTPFields = [:]
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        return try await send(.post, path, json: json, headers: headers)
    }

    /// Registers a passkey for `username` with `authenticator`; returns the result reply.
    func register(
        _ username: String, with authenticator: TestAuthenticator, bearer: String? = nil, flags: UInt8 = 0x45,
        aaguid: [UInt8] = Array(repeating: 0, count: 16)
    ) async throws -> RouteReply {
        let options = try await post("/attestation/options", ["username": username, "displayName": username.capitalized], bearer: bearer)
        guard options.isOK else { return options }
        return try await post("/attestation/result", try authenticator.register(options.json, flags: flags, aaguid: aaguid), bearer: bearer)
    }

    /// The events of `types` (comma-separated) in `GET /admin/v1/events`, newest first, read with admin key `key`.
    func adminEvents(_ types: String, key: String) async throws -> [[String: Any]] {
        let reply = try await send(.get, "/admin/v1/events?type=\(types)", headers: [.authorization: "Bearer \(key)"])
        #expect(reply.isOK, "\(reply.text)")
        return reply.json["events"] as? [[String: Any]] ?? []
    }

    /// Signs in with credential `index` of `authenticator`, naming `username` or not.
    func signIn(_ username: String?, with authenticator: TestAuthenticator, credential index: Int = 0) async throws -> RouteReply {
        let options = try await post("/assertion/options", username.map { ["username": $0] } ?? [:])
        guard options.isOK else { return options }
        return try await post("/assertion/result", try authenticator.assert(options.json, credential: index))
    }
}
