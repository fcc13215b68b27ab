import Testing
import WebAuthn

/// Origins are checked and serialized as a browser serializes its own origin.
@Suite("Origins")
struct WebOriginTests {
    @Test(arguments: [
        ("http://localhost:8080", "http://localhost:8080"),
        ("https://Example.COM:443", "https://example.com"),
        ("https://login.example.com:8443", "https://login.example.com:8443"),
        ("http://app.localhost", "http://app.localhost"),
        ("android:apk-key-hash:" + String(repeating: "A", count: 43), "android:apk-key-hash:" + String(repeating: "A", count: 43)),
    ])
    func acceptedOrigins(text: String, serialized: String) throws {
        #expect(try WebOrigin(text).serialized == serialized)
    }

    @Test(arguments: [
        "http://example.com", "https://example.com/", "https://example.com/path", "example.com", "ftp://example.com",
        "https://", "https://exa_mple.com", "https://example.com:0", "https://example.com:99999", "https://user@example.com",
        "https://[::1]", "android:apk-key-hash:short",
    ])
    func refusedOrigins(text: String) {
        #expect(throws: WebOrigin.Problem.self, "\(text)") { try WebOrigin(text) }
    }

    @Test func anOriginAdmitsItsHostAndTheDomainsItIsUnder() throws {
        let origin = try WebOrigin("https://login.example.com")
        #expect(origin.admits(rpID: "login.example.com") && origin.admits(rpID: "example.com"))
        #expect(!origin.admits(rpID: "notexample.com") && !origin.admits(rpID: "ample.com") && !origin.admits(rpID: ".example.com"))
        #expect(!origin.admits(rpID: "other.login.example.com") && !origin.admits(rpID: ""))
    }
}
