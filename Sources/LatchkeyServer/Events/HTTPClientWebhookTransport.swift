import AsyncHTTPClient
import LatchkeyService
import NIOCore
import NIOHTTP1

/// Webhook deliveries over AsyncHTTPClient: HTTP/1.1, no redirects followed, five seconds to connect. Only the
/// reply's head is read: a receiver trickling a body cannot stretch an attempt past its lease, and the connection
/// is then not reused.
struct HTTPClientWebhookTransport: WebhookTransport {
    let client: HTTPClient

    init() {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(5), read: TimeAmount(WebhookDispatcher.requestTimeout)))
        configuration.httpVersion = .http1Only
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// POSTs `body`; a 2xx is an acceptance.
    func deliver(_ body: [UInt8], to url: String, headers: [(name: String, value: String)], timeout: Duration) async throws -> String? {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let status = try await client.execute(request, timeout: TimeAmount(timeout)).status.code
        guard (200..<300).contains(status) else {
            let redirect = (300..<400).contains(status) ? " (redirects are not followed)" : ""
            return "HTTP \(status)\(redirect)"
        }
        return nil
    }

    func shutdown() async throws {
        try await client.shutdown()
    }
}
