import NIOHTTP1
import Testing

@testable import LatchkeyServer

/// One host per request, settled before anything routes it (RFC 9112 §3.2): what a proxy in front reads is what
/// Latchkey reads, so the two can never pick different tenants for one request.
@Suite struct RequestHostTests {
    func head(_ target: String = "/session", version: HTTPVersion = .http1_1, hosts: [String]) -> HTTPRequestHead {
        HTTPRequestHead(version: version, method: .GET, uri: target, headers: HTTPHeaders(hosts.map { ("Host", $0) }))
    }

    func refusal(_ head: HTTPRequestHead) -> String? {
        if case .failure(let refusal) = RequestHost.settle(head) { return refusal.message }
        return nil
    }

    @Test(arguments: ["id.example", "id.example:8443", "localhost", "127.0.0.1:8080", "[::1]:80", "[2001:db8::1]", "xn--bcher-kva.example"])
    func aValidHostIsKept(host: String) throws {
        let settled = try RequestHost.settle(head(hosts: [host])).get()
        #expect(settled.headers["Host"] == [host] && settled.uri == "/session")
    }

    @Test func anHTTP11RequestWithoutHostIsRefused() {
        #expect(refusal(head(hosts: [])) == "the request has no Host field (RFC 9112 §3.2)")
        #expect(refusal(head(version: .http1_0, hosts: [])) == nil, "HTTP/1.0 may omit it")
    }

    @Test func twoHostFieldsAreRefusedInEveryVersion() {
        #expect(refusal(head(hosts: ["a.example", "b.example"]))?.contains("2 Host fields") == true)
        #expect(refusal(head(version: .http1_0, hosts: ["a.example", "a.example"]))?.contains("2 Host fields") == true)
    }

    @Test(arguments: ["", " ", "a b.example", "a.example, b.example", "user@a.example", "a.example/x", "a.example:80x", "[::1", "[zz]",
                      "a.example:1234567", "%zz.example", ":80"])
    func anInvalidHostIsRefused(host: String) {
        let message = refusal(head(hosts: [host]))
        #expect(message != nil, "\(host)")
        if host.isEmpty { #expect(message == "the Host field is empty") }
    }

    /// RFC 9112 §3.2.2: the target's authority is the host, whatever `Host` says; the path and query are served.
    @Test func anAbsoluteFormTargetNamesItsOwnHost() throws {
        let settled = try RequestHost.settle(head("http://shop.example:8080/session?x=1", hosts: ["bank.example"])).get()
        #expect(settled.headers["Host"] == ["shop.example:8080"] && settled.uri == "/session?x=1")
        let bare = try RequestHost.settle(head("HTTPS://shop.example", hosts: [])).get()
        #expect(bare.headers["Host"] == ["shop.example"] && bare.uri == "/")
        #expect(refusal(head("http://user@shop.example/", hosts: ["shop.example"])) != nil, "user information is no host")
        #expect(refusal(head("http:///session", hosts: ["shop.example"])) != nil, "an empty authority is no host")
    }
}
